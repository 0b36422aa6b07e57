package dev.rendezvous.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Walks upstream's 81 v2 operations as docs/api-compatibility.md lists them and calls each against the running
 * system: one listed as served must not answer 404 "no such route", one listed as not served must. A 404 for a
 * missing object (the random ids used here) has another reason, so it counts as routed.
 */
class ApiCompatibilityTest {
  static final Path DOC = Path.of("..", "docs", "api-compatibility.md");
  private static final Pattern ROW = Pattern.compile(
      "^\\| (GET|POST|PUT|PATCH|DELETE) \\| `([^`]+)` \\| `([^`]+)` \\| (served|not served) \\|.*$");

  record Operation(String method, String path, String operationId, boolean served) {}

  static List<Operation> operations() throws Exception {
    List<Operation> out = new ArrayList<>();
    for (String line : Files.readAllLines(DOC)) {
      Matcher m = ROW.matcher(line);
      if (m.matches()) {
        out.add(new Operation(m.group(1), m.group(2), m.group(3), m.group(4).equals("served")));
      }
    }
    return out;
  }

  @Test
  void everyUpstreamOperationIsRoutedUnlessTheDocSaysOtherwise() throws Exception {
    TestSystem.shared();
    Api api = TestSystem.admin();
    List<Operation> ops = operations();
    assertEquals(81, ops.size(), "upstream's swagger has 81 v2 operations; the doc lists " + ops.size());
    assertEquals(81, ops.stream().map(o -> o.method() + " " + o.path()).distinct().count(), "no operation twice");
    List<String> wrong = new ArrayList<>();
    for (Operation op : ops) {
      String path = op.path().replace("/v2", "")
          .replace("{operator_name}", "lso").replace("{id}", "no-such-bundle").replace("{validation_id}", "ntp-synced");
      path = path.replaceAll("\\{[a-z_]+_id\\}", UUID.randomUUID().toString());
      String body = switch (op.method()) {
        case "POST", "PUT", "PATCH" -> "{}";
        default -> null;
      };
      Api.Reply r = api.call(op.method(), path, body);
      boolean noRoute = r.status() == 404 && reason(r).startsWith("no such route");
      boolean notAllowed = r.status() == 405;
      if (op.served() && (noRoute || notAllowed)) {
        wrong.add(op.operationId() + " (" + op.method() + " " + op.path() + ") is listed as served but answers " + r);
      } else if (!op.served() && !noRoute) {
        wrong.add(op.operationId() + " (" + op.method() + " " + op.path() + ") is listed as not served but answers " + r);
      }
    }
    assertTrue(wrong.isEmpty(), String.join("\n", wrong));
  }

  @Test
  void aMissingRouteAndAMissingObjectAnswerDifferently() {
    TestSystem.shared();
    Api api = TestSystem.admin();
    Api.Reply route = api.get("/no-such-collection");
    assertEquals(404, route.status());
    assertEquals("no such route: GET /api/assisted-install/v2/no-such-collection", reason(route));
    assertEquals("Error", route.json().getString("kind"));
    assertEquals("404", route.json().getString("code"));
    Api.Reply object = api.get("/clusters/" + UUID.randomUUID());
    assertEquals(404, object.status());
    assertTrue(reason(object).startsWith("cluster ") && reason(object).endsWith(" not found"), object.body());
  }

  private static String reason(Api.Reply r) {
    try {
      return new JsonObject(r.body()).getString("reason", "");
    } catch (RuntimeException e) {
      return "";
    }
  }
}
