// Starts AWS's DynamoDB Local exactly as its own main() would, but bound to one address.
// DynamoDB Local has no host option and binds every interface, while accepting any
// credentials: anyone on the network could read and write the key table. Java runs this
// file from source (JEP 330), so nothing is compiled ahead of time.
import java.lang.reflect.Field;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import software.amazon.dynamodb.services.local.main.ServerRunner;
import software.amazon.dynamodb.services.local.server.DynamoDBProxyServer;

public class LoopbackDynamoDB {
  public static void main(String[] args) throws Exception {
    String host = System.getProperty("dynamodb.host", "127.0.0.1");
    DynamoDBProxyServer proxy = ServerRunner.createServerFromCommandLineArgs(args);
    // The Jetty server is private to the proxy; its connector takes a host before start().
    Field field = DynamoDBProxyServer.class.getDeclaredField("server");
    field.setAccessible(true);
    Server jetty = (Server) field.get(proxy);
    for (Connector connector : jetty.getConnectors()) ((ServerConnector) connector).setHost(host);
    proxy.start();
    jetty.join();
  }
}
