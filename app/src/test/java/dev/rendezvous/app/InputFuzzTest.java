package dev.rendezvous.app;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.UUID;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Property-based fuzzing of every input parser through the running program (user REST API and agent gateway): random
 * text, and valid bodies with one field replaced by a value of any JSON type. No input may get a 5xx; every refusal
 * is a 4xx in upstream's error shape.
 */
class InputFuzzTest {
  private static final Rendezvous SYSTEM = TestSystem.shared();
  private static final Api API = TestSystem.admin();
  private static final String CLUSTER = API.post("/clusters", Api.cluster("fuzz")).json().getString("id");
  private static final String INFRA_ENV = API.post("/infra-envs", Api.infraEnv("fuzz-ie", CLUSTER)).json().getString("id");
  private static final String HOST = UUID.randomUUID().toString();
  private static final Api AGENT;

  static {
    try {
      AGENT = Api.agent(SYSTEM.config().apiPort(), SYSTEM.agentToken(INFRA_ENV, CLUSTER));
    } catch (java.io.IOException e) {
      throw new IllegalStateException(e);
    }
    AGENT.post("/infra-envs/" + INFRA_ENV + "/hosts", new JsonObject().put("host_id", HOST));
  }

  /** Where a body goes, and a valid body for it to mutate. */
  record Target(Api api, String method, String path, JsonObject valid) {
    @Override
    public String toString() {
      return method + " " + path;
    }
  }

  private static List<Target> targets() {
    String ie = "/infra-envs/" + INFRA_ENV;
    String host = ie + "/hosts/" + HOST;
    return List.of(
        new Target(API, "POST", "/clusters", Api.cluster("fuzz-new")),
        new Target(API, "PATCH", "/clusters/" + CLUSTER, new JsonObject().put("name", "fuzz2").put("api_vips",
            new JsonArray().add(new JsonObject().put("ip", "192.168.111.5")))),
        new Target(API, "POST", "/infra-envs", Api.infraEnv("fuzz-ie2", null)),
        new Target(API, "PATCH", ie, new JsonObject().put("ssh_authorized_key", "ssh-ed25519 AAAA fuzz")),
        new Target(API, "PATCH", host, new JsonObject().put("host_role", "master").put("host_name", "h")),
        new Target(API, "PATCH", "/clusters/" + CLUSTER + "/install-config", new JsonObject().put("fips", false)),
        new Target(API, "POST", "/clusters/" + CLUSTER + "/manifests", new JsonObject().put("folder", "manifests")
            .put("file_name", "a.yaml").put("content", "YTogYgo=")),
        new Target(API, "POST", "/events", new JsonObject().put("name", "x").put("message", "m").put("severity", "info")
            .put("category", "user").put("cluster_id", CLUSTER)),
        new Target(AGENT, "POST", ie + "/hosts", new JsonObject().put("host_id", UUID.randomUUID().toString())
            .put("discovery_agent_version", "v1")),
        new Target(AGENT, "POST", host + "/instructions", new JsonObject().put("step_type", "inventory")
            .put("step_id", "inventory-1").put("exit_code", 0).put("output", GatewayDouble.inventory(1, 4))),
        new Target(AGENT, "POST", host + "/instructions", new JsonObject().put("step_type", "connectivity-check")
            .put("step_id", "connectivity-check-1").put("exit_code", 0).put("output", "{\"remote_hosts\":[]}")),
        new Target(AGENT, "PUT", host + "/progress", new JsonObject().put("current_stage", "Installing")
            .put("progress_info", "x")));
  }

  @Provide
  Arbitrary<Target> target() {
    return Arbitraries.of(targets());
  }

  /** Any JSON value, nested a little. */
  private static Arbitrary<Object> anyValue() {
    return Arbitraries.oneOf(
        Arbitraries.strings().ofMaxLength(40).map(s -> (Object) s),
        Arbitraries.strings().withChars("0123456789./:-abcdef,{}[]\"\\").ofMaxLength(60).map(s -> (Object) s),
        Arbitraries.longs().map(l -> (Object) l),
        Arbitraries.doubles().map(d -> (Object) d),
        Arbitraries.of(true, false).map(b -> (Object) b),
        Arbitraries.just(null),
        Arbitraries.strings().ofMaxLength(10).list().ofMaxSize(5).map(l -> (Object) new JsonArray(List.copyOf(l))),
        Arbitraries.strings().ofMaxLength(8).map(s -> (Object) new JsonObject().put(s, new JsonArray().add(s))));
  }

  @Property(tries = 300)
  void aMutatedFieldNeverGetsA5xx(@ForAll("target") Target t, @ForAll("mutation") Mutation m) {
    JsonObject body = t.valid().copy();
    List<String> keys = List.copyOf(body.fieldNames());
    String key = m.newKey() ? m.name() : keys.get(Math.floorMod(m.index(), keys.size()));
    body.put(key, m.value());
    check(t, body.encode());
  }

  @Property(tries = 200)
  void arbitraryTextNeverGetsA5xx(@ForAll("target") Target t, @ForAll("text") String text) {
    check(t, text);
  }

  record Mutation(boolean newKey, String name, int index, Object value) {}

  @Provide
  Arbitrary<Mutation> mutation() {
    return Combinators.combine(Arbitraries.of(true, false), Arbitraries.strings().ofMaxLength(12),
        Arbitraries.integers(), anyValue()).as(Mutation::new);
  }

  @Provide
  Arbitrary<String> text() {
    return Arbitraries.oneOf(Arbitraries.strings().ofMaxLength(200),
        Arbitraries.strings().withChars("{}[]\":,0123456789.eE-+ tfnrul\\").ofMaxLength(200),
        Arbitraries.integers().between(1, 5000).map(n -> "[".repeat(n)),
        Arbitraries.integers().between(1, 3000).map(n -> "{\"a\":".repeat(n) + "1" + "}".repeat(n)));
  }

  private static void check(Target t, String body) {
    Api.Reply r = t.api().call(t.method(), t.path(), body);
    assertTrue(r.status() < 500, t + " with " + abbreviate(body) + " -> " + r);
    if (r.status() >= 400) {
      assertTrue(r.body().contains("\"reason\""), t + ": upstream's error shape, got " + r);
    }
  }

  private static String abbreviate(String s) {
    return s.length() > 300 ? s.substring(0, 300) + "…(" + s.length() + " chars)" : s;
  }
}
