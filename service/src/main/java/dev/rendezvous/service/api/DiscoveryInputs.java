package dev.rendezvous.service.api;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.rendezvous.service.ignition.DiscoveryIgnitionBuilder;
import dev.rendezvous.service.ignition.DiscoveryIgnitionInput;
import dev.rendezvous.service.ignition.InvalidIgnitionInputException;
import dev.rendezvous.service.validation.InvalidInputException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;

/** An infra-env's stored spec (upstream field names) as the discovery Ignition builder's input. */
public final class DiscoveryInputs {
  private static final ObjectMapper JSON =
      new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);
  private static final DiscoveryIgnitionBuilder BUILDER = new DiscoveryIgnitionBuilder();
  /** Stand-ins used only to check a spec before there is a token or a stored pull secret to use. */
  private static final String CHECK_URL = "http://validation.invalid:8090";
  private static final String CHECK_TOKEN = "rdv1.check";
  private static final String CHECK_PULL_SECRET = "{\"auths\":{\"check.invalid\":{\"auth\":\"eDp5\"}}}";

  private DiscoveryInputs() {}

  public static DiscoveryIgnitionInput of(JsonObject spec, String pullSecret, String serviceUrl, String infraEnvId,
      String agentToken) {
    return of(spec, pullSecret, serviceUrl, infraEnvId, agentToken, null);
  }

  /** With the site's mirror registries (null: none), as the service is configured. */
  public static DiscoveryIgnitionInput of(JsonObject spec, String pullSecret, String serviceUrl, String infraEnvId,
      String agentToken, DiscoveryIgnitionInput.RegistryMirrors mirrors) {
    return of(spec, pullSecret, serviceUrl, infraEnvId, agentToken, mirrors, null);
  }

  /** With the CA that signed the service's TLS certificate (PEM; null: none to hand out), which the agent trusts. */
  public static DiscoveryIgnitionInput of(JsonObject spec, String pullSecret, String serviceUrl, String infraEnvId,
      String agentToken, DiscoveryIgnitionInput.RegistryMirrors mirrors, String serviceCaPem) {
    JsonObject proxy = spec.getJsonObject("proxy");
    JsonArray statics = spec.getJsonArray("static_network_config", new JsonArray());
    List<DiscoveryIgnitionInput.StaticNetworkConfig> staticConfigs = new ArrayList<>();
    for (Object o : statics) {
      // encode first: getMap() keeps nested JsonArray/JsonObject values, which Jackson cannot convert
      try {
        staticConfigs.add(JSON.readValue(((JsonObject) o).encode(), DiscoveryIgnitionInput.StaticNetworkConfig.class));
      } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
        throw new IllegalStateException("stored static_network_config is unreadable", e);
      }
    }
    String ntp = spec.getString("additional_ntp_sources");
    return new DiscoveryIgnitionInput(serviceUrl, infraEnvId, agentToken, blankToNull(spec.getString("ssh_authorized_key")),
        pullSecret,
        proxy == null ? null : new DiscoveryIgnitionInput.Proxy(proxy.getString("http_proxy"),
            proxy.getString("https_proxy"), proxy.getString("no_proxy")),
        blankToNull(spec.getString("additional_trust_bundle")), mirrors,
        ntp == null ? List.of() : DiscoveryIgnitionBuilder.splitNtpSources(ntp),
        staticConfigs, blankToNull(spec.getString("ignition_config_override")),
        serviceCaPem == null ? null : new DiscoveryIgnitionInput.AgentLaunch(null, null, serviceCaPem, false, null, true));
  }

  /** The infra-env's discovery Ignition (JSON text). */
  public static String ignition(JsonObject spec, String pullSecret, String serviceUrl, String infraEnvId, String agentToken) {
    return ignition(spec, pullSecret, serviceUrl, infraEnvId, agentToken, null);
  }

  public static String ignition(JsonObject spec, String pullSecret, String serviceUrl, String infraEnvId, String agentToken,
      DiscoveryIgnitionInput.RegistryMirrors mirrors) {
    return ignition(spec, pullSecret, serviceUrl, infraEnvId, agentToken, mirrors, null);
  }

  public static String ignition(JsonObject spec, String pullSecret, String serviceUrl, String infraEnvId, String agentToken,
      DiscoveryIgnitionInput.RegistryMirrors mirrors, String serviceCaPem) {
    return BUILDER.build(of(spec, pullSecret, serviceUrl, infraEnvId, agentToken, mirrors, serviceCaPem));
  }

  /** Upstream's {@code static-network-config} download: a tar of each host's keyfiles and MAC map (empty if none). */
  public static byte[] staticNetworkArchive(JsonObject spec) {
    return dev.rendezvous.service.ignition.PreNetworkManagerConfig.archive(
        dev.rendezvous.service.ignition.NmStateKeyfiles.convert(of(spec, null, CHECK_URL, "static", CHECK_TOKEN).staticNetworkConfig()));
  }

  /** Refuses a spec whose Ignition could not be built (bad override, NMState, keys), naming the field. */
  public static void check(JsonObject spec, String infraEnvId) {
    try {
      ignition(spec, CHECK_PULL_SECRET, CHECK_URL, infraEnvId, CHECK_TOKEN);
    } catch (InvalidIgnitionInputException e) {
      throw new InvalidInputException(e.field(), e.reason());
    }
  }

  /** The values of the infra-env's {@code kernel_arguments} with {@code operation: append}, in order. */
  public static List<String> appendedKernelArguments(JsonObject spec) {
    List<String> out = new ArrayList<>();
    for (Object o : spec.getJsonArray("kernel_arguments", new JsonArray())) {
      if (o instanceof JsonObject k && "append".equals(k.getString("operation")) && k.getString("value") != null) {
        out.add(k.getString("value"));
      }
    }
    return out;
  }

  private static String blankToNull(String s) {
    return s == null || s.isBlank() ? null : s;
  }
}
