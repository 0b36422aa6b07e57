package dev.rendezvous.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Row;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Each bad request gets its 4xx with a JSON error naming the field, and the database stays as it was. */
class BadInputTest {
  private static final Api API = TestSystem.admin();
  private static String clusterId;
  private static String infraEnvId;
  /** When the fixtures were made: rows created from then on were made by this test's requests. */
  private static java.time.OffsetDateTime since;

  @BeforeAll
  static void fixtures() {
    since = java.time.OffsetDateTime.now();
    clusterId = API.post("/clusters", Api.cluster("bad-input-base")).json().getString("id");
    infraEnvId = API.post("/infra-envs", Api.infraEnv("bad-input-ie", clusterId)).json().getString("id");
    // The brain's monitor refreshes new clusters in the background (validations, status): let it settle
    // so that "nothing written" below is about the refused request alone.
    Await.until("background writes settled", java.time.Duration.ofSeconds(30), () -> {
      try {
        String a = snapshot();
        Thread.sleep(600);
        return a.equals(snapshot()) ? true : null;
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
  }

  static JsonObject c(String k, Object v) {
    return Api.cluster("bad-input").put(k, v);
  }

  static Stream<Arguments> cases() {
    String big = "x".repeat(5 * 1024 * 1024);
    return Stream.of(
        Arguments.of("POST", "/clusters", "{", 400, "body"),
        Arguments.of("POST", "/clusters", "[1,2]", 400, "body"),
        Arguments.of("POST", "/clusters", "", 400, "body"),
        Arguments.of("POST", "/clusters", new JsonObject().put("openshift_version", "4.18").put("pull_secret", Api.PULL_SECRET).encode(), 400, "name"),
        Arguments.of("POST", "/clusters", c("name", "Bad_Name").encode(), 400, "name"),
        Arguments.of("POST", "/clusters", c("name", "a".repeat(55)).encode(), 400, "name"),
        Arguments.of("POST", "/clusters", c("name", 42).encode(), 400, "name"),
        // PostgreSQL text cannot hold U+0000: named, not a 500 from the write
        Arguments.of("POST", "/infra-envs", new JsonObject().put("name", "\u0000").put("pull_secret", Api.PULL_SECRET).encode(), 400, "name"),
        Arguments.of("POST", "/clusters", c("ssh_public_key", "ssh-ed25519 AAAA\u0000").encode(), 400, "ssh_public_key"),
        Arguments.of("POST", "/clusters", c("openshift_version", "3.11").encode(), 400, "openshift_version"),
        Arguments.of("POST", "/clusters", c("pull_secret", "not json").encode(), 400, "pull_secret"),
        Arguments.of("POST", "/clusters", c("pull_secret", "{\"other\":{}}").encode(), 400, "pull_secret"),
        Arguments.of("POST", "/clusters", c("pull_secret", "{\"auths\":{\"q\":{\"auth\":\"!!!\"}}}").encode(), 400, "pull_secret"),
        Arguments.of("POST", "/clusters", c("base_dns_domain", "nodots").encode(), 400, "base_dns_domain"),
        Arguments.of("POST", "/clusters", c("base_dns_domain", "Example.COM").encode(), 400, "base_dns_domain"),
        Arguments.of("POST", "/clusters", c("cluster_network_cidr", "10.0.0.0/33").encode(), 400, "cluster_network_cidr"),
        Arguments.of("POST", "/clusters", c("service_network_cidr", "300.1.0.0/16").encode(), 400, "service_network_cidr"),
        Arguments.of("POST", "/clusters", c("cluster_network_host_prefix", 8).encode(), 400, "cluster_network_host_prefix"),
        Arguments.of("POST", "/clusters", c("cluster_network_host_prefix", "23").encode(), 400, "cluster_network_host_prefix"),
        Arguments.of("POST", "/clusters", c("service_network_cidr", "10.128.0.0/16").encode(), 400, "service_networks"),
        Arguments.of("POST", "/clusters", c("api_vips", new JsonArray().add(new JsonObject().put("ip", "1.2.3"))).encode(), 400, "api_vips[0].ip"),
        Arguments.of("POST", "/clusters", c("ssh_public_key", "ssh-rsa AAAA notakey").encode(), 400, "ssh_public_key"),
        Arguments.of("POST", "/clusters", c("ssh_public_key", "ssh-rsa AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl").encode(), 400, "ssh_public_key"),
        Arguments.of("POST", "/clusters", c("high_availability_mode", "Partial").encode(), 400, "high_availability_mode"),
        Arguments.of("POST", "/clusters", c("cpu_architecture", "sparc").encode(), 400, "cpu_architecture"),
        Arguments.of("POST", "/clusters", c("control_plane_count", 2).encode(), 400, "control_plane_count"),
        Arguments.of("POST", "/clusters", c("http_proxy", "ftp://proxy").encode(), 400, "http_proxy"),
        Arguments.of("POST", "/clusters", c("no_proxy", "bad host!").encode(), 400, "no_proxy"),
        Arguments.of("POST", "/clusters", c("schedulable_masters", "yes").encode(), 400, "schedulable_masters"),
        Arguments.of("POST", "/clusters", c("platform", new JsonObject().put("type", "aws")).encode(), 400, "platform.type"),
        Arguments.of("POST", "/clusters", c("tags", big).encode(), 413, "body"),
        Arguments.of("GET", "/clusters/not-a-uuid", null, 400, "cluster_id"),
        Arguments.of("GET", "/clusters/7c0d4a2e-0000-4000-8000-000000000000", null, 404, null),
        Arguments.of("PATCH", "/clusters/7c0d4a2e-0000-4000-8000-000000000000", "{}", 404, null),
        Arguments.of("PATCH", "/clusters/{cluster}", new JsonObject().put("machine_network_cidr", "10.0.0.0/xx").encode(), 400, "machine_network_cidr"),
        Arguments.of("PATCH", "/clusters/{cluster}", new JsonObject().put("name", "UPPER").encode(), 400, "name"),
        Arguments.of("POST", "/infra-envs", new JsonObject().put("name", "x").encode(), 400, "pull_secret"),
        Arguments.of("POST", "/infra-envs", Api.infraEnv("x", "nope").encode(), 400, "cluster_id"),
        Arguments.of("POST", "/infra-envs", Api.infraEnv("x", "7c0d4a2e-0000-4000-8000-000000000000").encode(), 404, "cluster_id"),
        Arguments.of("POST", "/infra-envs", Api.infraEnv("x", null).put("image_type", "floppy").encode(), 400, "image_type"),
        Arguments.of("POST", "/infra-envs", Api.infraEnv("x", null).put("ignition_config_override", "{\"ignition\":{\"version\":\"2.2.0\"}}").encode(), 400, "ignition_config_override"),
        Arguments.of("POST", "/infra-envs", Api.infraEnv("x", null).put("static_network_config", new JsonArray().add(new JsonObject().put("network_yaml", "a: b")
            .put("mac_interface_map", new JsonArray().add(new JsonObject().put("mac_address", "zz:11:22:33:44:55").put("logical_nic_name", "eth0"))))).encode(), 400, "static_network_config[0].mac_interface_map[0].mac_address"),
        Arguments.of("POST", "/infra-envs", Api.infraEnv("x", null).put("proxy", new JsonObject().put("https_proxy", "nope")).encode(), 400, "proxy.https_proxy"),
        Arguments.of("POST", "/infra-envs", Api.infraEnv("x", null).put("additional_trust_bundle", "not pem").encode(), 400, "additional_trust_bundle"),
        Arguments.of("PATCH", "/infra-envs/{infra_env}", new JsonObject().put("kernel_arguments", new JsonArray().add(new JsonObject().put("operation", "explode").put("value", "x"))).encode(), 400, "kernel_arguments[0].operation"),
        Arguments.of("GET", "/infra-envs/{infra_env}/hosts/not-a-uuid", null, 400, "host_id"),
        Arguments.of("GET", "/events?limit=ten", null, 400, "limit"),
        Arguments.of("GET", "/events?order=sideways", null, 400, "order"),
        Arguments.of("GET", "/events?severities=loud", null, 400, "severities"),
        Arguments.of("GET", "/events?cluster_id=xyz", null, 400, "cluster_id"),
        Arguments.of("GET", "/no-such-thing", null, 404, null),
        Arguments.of("PUT", "/clusters", "{}", 405, null));
  }

  @ParameterizedTest(name = "{0} {1} -> {3} {4}")
  @MethodSource("cases")
  void refusedWithFieldAndNothingWritten(String method, String path, String body, int status, String field) throws Exception {
    String before = snapshot();
    String p = path.replace("{cluster}", clusterId).replace("{infra_env}", infraEnvId);
    Api.Reply r = API.call(method, p, body);
    assertEquals(status, r.status(), r.body());
    JsonObject err = r.json();
    assertEquals("Error", err.getString("kind"));
    assertEquals(Integer.toString(status), err.getString("code"));
    assertEquals(status, err.getInteger("id"));
    assertTrue(err.getString("reason") != null && !err.getString("reason").isBlank());
    assertTrue(!r.body().contains("Exception") && !r.body().contains("\tat "), "no stack traces: " + r.body());
    if (field != null) {
      assertEquals(field, err.getString("field"), r.body());
    }
    assertEquals(before, snapshot(), "the database is unchanged");
  }

  /**
   * What a refused request could have written: rows created since the fixtures (a cluster, infra-env or host made by
   * a request that should have been refused), this test's own cluster and infra-env, events about them or about
   * nothing in particular. Not the shared system's other rows: earlier tests' clusters may still be finishing (their
   * last reports, the monitor) while this test runs.
   */
  private static String snapshot() throws Exception {
    java.util.UUID cluster = java.util.UUID.fromString(clusterId);
    java.util.UUID infraEnv = java.util.UUID.fromString(infraEnvId);
    java.util.Map<String, io.vertx.sqlclient.Tuple> queries = new java.util.LinkedHashMap<>();
    queries.put("SELECT count(*), coalesce(sum(row_version), 0) FROM clusters WHERE created_at >= $1 OR id = $2",
        io.vertx.sqlclient.Tuple.of(since, cluster));
    queries.put("SELECT count(*), coalesce(sum(row_version), 0) FROM infra_envs WHERE created_at >= $1 OR id = $2",
        io.vertx.sqlclient.Tuple.of(since, infraEnv));
    queries.put("SELECT count(*), coalesce(sum(row_version), 0) FROM hosts WHERE created_at >= $1 OR cluster_id = $2"
        + " OR infra_env_id = $3", io.vertx.sqlclient.Tuple.of(since, cluster, infraEnv));
    queries.put("SELECT count(*), 0 FROM events WHERE cluster_id = $2 OR infra_env_id = $3 OR (event_time >= $1"
        + " AND cluster_id IS NULL AND infra_env_id IS NULL AND host_id IS NULL)",
        io.vertx.sqlclient.Tuple.of(since, cluster, infraEnv));
    StringBuilder s = new StringBuilder();
    for (var q : queries.entrySet()) {
      Row row = TestSystem.shared().pool().preparedQuery(q.getKey()).execute(q.getValue())
          .await(10, TimeUnit.SECONDS).iterator().next();
      s.append(row.getLong(0)).append('/').append(row.getNumeric(1)).append(' ');
    }
    return s.toString();
  }
}
