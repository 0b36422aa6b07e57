package dev.rendezvous.kube;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * {@code ./rendezvous kube crds|rbac|deployment}: prints the manifests a hub needs, for {@code kubectl apply -f -}.
 * Once the containers module built the images ({@code containers/target/images.txt}), the Deployment names the
 * service's image by digest and hands the service the controller's (the Job each cluster's bootstrap renders names it).
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
        String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        if (f.equals("deploy/deployment.yaml")) {
          text = deployment(text, ContainerImages.read(ContainerImages.DEFAULT_FILE));
        }
        out.append("---\n").append(text);
      }
    }
    System.out.print(out);
  }

  static final String IMAGE_LINE = "        image: rendezvous:latest\n";
  static final String ENV_LINE = "        env:\n";

  /** The Deployment with the built images by digest: the service's as its image, the controller's in its env. */
  static String deployment(String template, ContainerImages images) {
    if (!template.contains(IMAGE_LINE) || !template.contains(ENV_LINE)) {
      throw new IllegalStateException("deploy/deployment.yaml lost its '" + IMAGE_LINE.strip() + "' or '"
          + ENV_LINE.strip() + "' line");
    }
    String out = template;
    var service = images.byDigest(ContainerImages.SERVICE);
    if (service.isPresent()) {
      out = out.replace(IMAGE_LINE, "        image: " + service.get() + "\n");
    }
    var controller = images.byDigest(ContainerImages.CONTROLLER);
    if (controller.isPresent()) {
      out = out.replace(ENV_LINE, ENV_LINE + "        - {name: RDV_CONTROLLER_IMAGE, value: \"" + controller.get() + "\"}\n");
    }
    return out;
  }
}
