/**
 * The handler environment of the AWS-API suite's workers. The endpoints (moto's, DynamoDB
 * Local's) come from global-setup.cjs; each test file creates the queue, key, secret, pool or
 * state machine it uses on moto and names it in the variable the stack would set.
 */
process.env.TABLE_NAME = 'deployments-test';
process.env.AWS_REGION = 'us-east-1';
process.env.AWS_ACCESS_KEY_ID = 'testing';
process.env.AWS_SECRET_ACCESS_KEY = 'testing';
// The deliverer logs the failures the tests cause on purpose; jest's own report says what failed.
process.env.LOG_LEVEL = 'silent';
// The receivers of the deliverer's test run on this machine (decision 38).
process.env.WEBHOOK_ALLOW_INSECURE = 'true';
