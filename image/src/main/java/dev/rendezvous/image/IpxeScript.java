package dev.rendezvous.image;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The iPXE boot script of an infra-env, as upstream's assisted-service renders it: the kernel and
 * rootfs from the image service's boot artifacts, the initrd with the discovery Ignition appended.
 * Only the initrd URL carries the credential.
 */
public final class IpxeScript {

  private static final String DEFAULT_KARGS = "random.trust_cpu=on rd.luks.options=discard ignition.firstboot "
      + "ignition.platform.id=metal console=tty1 console=ttyS1,115200n8 "
      + "coreos.inst.persistent-kargs=\"console=tty1 console=ttyS1,115200n8\"";

  private IpxeScript() {}

  /**
   * @param imageServiceBaseUrl the image service's public URL
   * @param credentialParam {@code api_key} or {@code image_token}, or null for none
   * @param extraKernelArguments the infra-env's appended kernel arguments
   */
  public static String render(String imageServiceBaseUrl, String infraEnvId, String arch, String version,
      String credentialParam, String credential, List<String> extraKernelArguments) {
    String base = BaseImageCatalog.stripSlash(imageServiceBaseUrl);
    String query = "?arch=" + enc(arch) + "&version=" + enc(version);
    String initrd = base + "/images/" + enc(infraEnvId) + "/pxe-initrd" + query;
    if (credentialParam != null && credential != null) {
      if (!credentialParam.equals("api_key") && !credentialParam.equals("image_token")) {
        throw new IllegalArgumentException("credential parameter must be api_key or image_token");
      }
      initrd += "&" + credentialParam + "=" + enc(credential);
    }
    StringBuilder kernel = new StringBuilder()
        .append("kernel ").append(base).append("/boot-artifacts/kernel").append(query)
        .append(" initrd=initrd coreos.live.rootfs_url=").append(base).append("/boot-artifacts/rootfs").append(query)
        .append(' ').append(DEFAULT_KARGS);
    for (String k : extraKernelArguments) {
      if (k.isBlank() || k.contains("\n") || k.contains("\r")) {
        throw new IllegalArgumentException("invalid kernel argument '" + k + "'");
      }
      kernel.append(' ').append(k.strip());
    }
    return "#!ipxe\n"
        + "initrd --name initrd " + initrd + "\n"
        + kernel + "\n"
        + "boot\n";
  }

  private static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }
}
