import { ddb } from '../../functions/adapters/dynamo/client';

// Close the SDK's keep-alive sockets so jest exits cleanly.
afterAll(() => ddb.destroy());
