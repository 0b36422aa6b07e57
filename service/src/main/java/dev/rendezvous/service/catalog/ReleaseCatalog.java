package dev.rendezvous.service.catalog;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * The OpenShift releases a cluster may ask for, read from a JSON file (RDV_RELEASE_CATALOG) or the
 * built-in default. A cluster's openshift_version matches an entry by major.minor, as upstream.
 */
public record ReleaseCatalog(List<Release> releases) {

  public record Release(
      @JsonProperty("openshift_version") String openshiftVersion,
      @JsonProperty("display_name") String displayName,
      @JsonProperty("release_image") String releaseImage,
      @JsonProperty("cpu_architectures") List<String> cpuArchitectures,
      @JsonProperty("support_level") String supportLevel,
      @JsonProperty("default") boolean isDefault,
      @JsonProperty("release_images") java.util.Map<String, String> releaseImages,
      @JsonProperty("os_images") List<OsImage> osImages) {

    public Release {
      releaseImages = releaseImages == null ? java.util.Map.of() : java.util.Map.copyOf(releaseImages);
      osImages = osImages == null ? List.of() : List.copyOf(osImages);
    }
  }

  /** The RHCOS live ISO (and the rootfs minimal ISOs fetch) of one architecture of a release, as upstream lists them. */
  public record OsImage(
      @JsonProperty("cpu_architecture") String cpuArchitecture,
      @JsonProperty("version") String version,
      @JsonProperty("url") String url,
      @JsonProperty("rootfs_url") String rootfsUrl) {}

  private static final ObjectMapper JSON =
      new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

  public static ReleaseCatalog builtIn() {
    try (InputStream in = ReleaseCatalog.class.getResourceAsStream("/release-catalog.json")) {
      return new ReleaseCatalog(Arrays.asList(JSON.readValue(in, Release[].class)));
    } catch (IOException e) {
      throw new IllegalStateException("built-in release catalog unreadable", e);
    }
  }

  public static ReleaseCatalog fromFile(Path file) throws IOException {
    return new ReleaseCatalog(Arrays.asList(JSON.readValue(Files.readAllBytes(file), Release[].class)));
  }

  public Optional<Release> find(String version) {
    String minor = majorMinor(version);
    return releases.stream().filter(r -> r.openshiftVersion().equals(minor)).findFirst();
  }

  public Release defaultRelease() {
    return releases.stream().filter(Release::isDefault).findFirst().orElse(releases.get(releases.size() - 1));
  }

  static String majorMinor(String version) {
    String[] parts = version.split("\\.");
    return parts.length >= 2 ? parts[0] + "." + parts[1] : version;
  }
}
