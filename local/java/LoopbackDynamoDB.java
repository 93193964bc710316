// Starts AWS's DynamoDB Local exactly as its own main() would, but bound to one address,
// and answering one set of credentials. DynamoDB Local has no host option and binds every
// interface, while accepting any credentials: anyone on the network could read and write
// the key table, and any account on the machine still can on loopback. So the launcher
// binds the given host, and when DYNAMODB_LOCAL_ACCESS_KEY_ID is set (the npm start's own
// credentials, decision 236; an environment variable, which other users cannot read, not an
// argument, which they can), refuses every request whose SigV4 Authorization names another
// access key id. Java runs this file from source (JEP 330), so nothing is compiled ahead of time.
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import software.amazon.dynamodb.services.local.main.ServerRunner;
import software.amazon.dynamodb.services.local.server.DynamoDBProxyServer;

public class LoopbackDynamoDB {
  private static final Pattern CREDENTIAL = Pattern.compile("Credential=([^/,\\s]+)/");
  private static final String REFUSED =
      "{\"__type\":\"com.amazonaws.dynamodb.v20120810#UnrecognizedClientException\","
          + "\"message\":\"The security token included in the request is invalid: this engine belongs to another npm start.\"}";

  static boolean signedBy(String authorization, byte[] expected) {
    if (authorization == null) return false;
    Matcher m = CREDENTIAL.matcher(authorization);
    return m.find() && MessageDigest.isEqual(m.group(1).getBytes(StandardCharsets.UTF_8), expected);
  }

  public static void main(String[] args) throws Exception {
    String host = System.getProperty("dynamodb.host", "127.0.0.1");
    DynamoDBProxyServer proxy = ServerRunner.createServerFromCommandLineArgs(args);
    // The Jetty server is private to the proxy; its connector takes a host before start().
    Field field = DynamoDBProxyServer.class.getDeclaredField("server");
    field.setAccessible(true);
    Server jetty = (Server) field.get(proxy);
    for (Connector connector : jetty.getConnectors()) ((ServerConnector) connector).setHost(host);
    String key = System.getenv("DYNAMODB_LOCAL_ACCESS_KEY_ID");
    if (key != null && !key.isEmpty()) {
      byte[] expected = key.getBytes(StandardCharsets.UTF_8);
      Handler engine = jetty.getHandler();
      jetty.setHandler(
          new Handler.Wrapper(engine) {
            @Override
            public boolean handle(Request request, Response response, Callback callback) throws Exception {
              if (signedBy(request.getHeaders().get("Authorization"), expected)) return super.handle(request, response, callback);
              response.setStatus(400);
              response.getHeaders().put("Content-Type", "application/x-amz-json-1.0");
              Content.Sink.write(response, true, REFUSED, callback);
              return true;
            }
          });
    }
    proxy.start();
    jetty.join();
  }
}
