package dev.rendezvous.kube;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * {@code ./rendezvous kube crds|rbac|deployment}: prints the manifests a hub needs, for {@code kubectl apply -f -}.
 */
public final class KubeManifestsMain {
  private KubeManifestsMain() {}

  public static void main(String[] args) throws IOException {
    String what = args.length == 0 ? "" : args[0];
    List<String> files = switch (what) {
      case "crds" -> Kinds.crdResources();
      case "rbac" -> List.of("deploy/rbac.yaml");
      case "deployment" -> List.of("deploy/deployment.yaml");
      default -> null;
    };
    if (files == null) {
      System.err.println("usage: rendezvous kube crds|rbac|deployment   (prints manifests for kubectl apply -f -)");
      System.exit(2);
      return;
    }
    StringBuilder out = new StringBuilder();
    for (String f : files) {
      try (InputStream in = KubeManifestsMain.class.getClassLoader().getResourceAsStream(f)) {
        if (in == null) {
          throw new IOException(f + " is missing from the jar");
        }
        out.append("---\n").append(new String(in.readAllBytes(), StandardCharsets.UTF_8));
      }
    }
    System.out.print(out);
  }
}
