package dev.rendezvous.controller.testing;

import static dev.rendezvous.controller.testing.MockCluster.condition;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Base64;

/**
 * {@link MockCluster} as a process, for tests of other modules: fabric8's CRUD mock server and the controller's
 * test classes stay on the controller's test classpath (target/test-classpath.txt), and a test of another module
 * drives it here, one command per line on stdin. The test plays the kubelets and the operators through these
 * commands.
 *
 * <p>Answers are lines starting with {@value #REPLY} ({@code ok [value]} or {@code error <why>}); anything else on
 * stdout is log. Started with the directory for the kubeconfig; its first answer is {@code ok <kubeconfig path>}.
 *
 * <pre>
 * csr NAME NODE                  a kubelet's client CSR for node NODE
 * approved NAME                  ok true|false
 * node NAME IP ROLE              a NotReady node with label node-role.kubernetes.io/ROLE
 * node-ready NAME                its Ready condition True
 * operator NAME VERSION          ClusterOperator Available=True at VERSION
 * cluster-version VERSION        ClusterVersion Available=True at VERSION
 * ingress-ca BASE64_PEM          openshift-config-managed/default-ingress-cert
 * event NAMESPACE NAME           ok true|false: whether that event exists
 * quit
 * </pre>
 */
public final class MockClusterMain {
  public static final String REPLY = "mock-cluster> ";

  private MockClusterMain() {
  }

  public static void main(String[] args) throws Exception {
    try (MockCluster kube = new MockCluster(Path.of(args[0]))) {
      reply("ok " + kube.kubeconfig());
      BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
      for (String line; (line = in.readLine()) != null && !line.equals("quit"); ) {
        try {
          reply(answer(kube, line.trim().split("\\s+")));
        } catch (RuntimeException e) {
          reply("error " + String.valueOf(e.getMessage()).replace('\n', ' '));
        }
      }
    }
  }

  private static String answer(MockCluster kube, String[] c) {
    switch (c[0]) {
      case "csr" -> kube.createKubeletCsr(c[1], c[2]);
      case "approved" -> {
        return "ok " + kube.approved(c[1]);
      }
      case "node" -> kube.createNode(c[1], c[2], false, c[3]);
      case "node-ready" -> kube.setNodeReady(c[1]);
      case "operator" -> kube.setOperator(c[1], c[2], condition("Available", "True", "All is well"));
      case "cluster-version" -> kube.setClusterVersion(c[1], condition("Available", "True", "Done applying " + c[1]));
      case "ingress-ca" -> kube.createIngressCa(new String(Base64.getDecoder().decode(c[1]), StandardCharsets.UTF_8));
      case "event" -> {
        return "ok " + (kube.client.v1().events().inNamespace(c[1]).withName(c[2]).get() != null);
      }
      default -> throw new IllegalArgumentException("unknown command " + c[0]);
    }
    return "ok";
  }

  private static void reply(String s) {
    System.out.println(REPLY + s);
    System.out.flush();
  }
}
