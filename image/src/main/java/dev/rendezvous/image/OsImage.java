package dev.rendezvous.image;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;

/**
 * One base-image catalog entry, shaped like upstream's OS_IMAGES list entries.
 *
 * @param url an http(s) URL, a file: URL or a local path
 * @param sha256 optional hex checksum of the ISO, verified after download
 * @param metalUrl our extension: the OS disk image (raw, gz or xz) the installer writes for this release and
 *     architecture (upstream's coreos-installer takes it from the live ISO itself)
 * @param metalSha256 optional hex sha256 of the bytes at {@code metalUrl}, checked by the installer
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_NULL)
public record OsImage(
    @JsonProperty("openshift_version") String openshiftVersion,
    @JsonProperty("cpu_architecture") String cpuArchitecture,
    @JsonProperty("url") String url,
    @JsonProperty("version") String version,
    @JsonProperty("sha256") String sha256,
    @JsonProperty("metal_url") String metalUrl,
    @JsonProperty("metal_sha256") String metalSha256) {

  private static final ObjectMapper JSON = new ObjectMapper();

  public OsImage {
    require(openshiftVersion, "openshift_version");
    require(cpuArchitecture, "cpu_architecture");
    require(url, "url");
    require(version, "version");
    if (sha256 != null && !sha256.matches("[0-9a-fA-F]{64}")) {
      throw new IllegalArgumentException("OS image sha256 must be 64 hex digits");
    }
    if (metalSha256 != null && !metalSha256.matches("[0-9a-fA-F]{64}")) {
      throw new IllegalArgumentException("OS image metal_sha256 must be 64 hex digits");
    }
    if (!version.matches("[A-Za-z0-9._-]+") || !cpuArchitecture.matches("[A-Za-z0-9_-]+")) {
      throw new IllegalArgumentException("OS image version and cpu_architecture must be simple names");
    }
  }

  /** An entry without a metal image. */
  public OsImage(String openshiftVersion, String cpuArchitecture, String url, String version, String sha256) {
    this(openshiftVersion, cpuArchitecture, url, version, sha256, null, null);
  }

  private static void require(String v, String name) {
    if (v == null || v.isBlank()) {
      throw new IllegalArgumentException("OS image entry lacks " + name);
    }
  }

  /** Parses an OS_IMAGES JSON array. */
  public static List<OsImage> parseList(String json) {
    try {
      return List.copyOf(JSON.readValue(json, new TypeReference<List<OsImage>>() {}));
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalArgumentException("invalid OS images JSON: " + e.getOriginalMessage(), e);
    }
  }

  /** True when the request's version names this entry (RHCOS build id or OpenShift version). */
  public boolean matchesVersion(String v) {
    return version.equals(v) || openshiftVersion.equals(v);
  }
}
