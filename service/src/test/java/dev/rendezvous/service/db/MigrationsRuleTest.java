package dev.rendezvous.service.db;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The rolling-upgrade rule for the schema (docs/scale-out.md): a release's migrations only expand (new tables,
 * nullable or defaulted columns, indexes), so the previous release runs unchanged against them; what a release
 * stops using is dropped by a later one, in a migration named {@code V<n>__contract_<what>.sql}. The migrations
 * written before the rule (V1–V12) are as they were released.
 */
class MigrationsRuleTest {
  /** The last migration released before the rule: these are not read by it. */
  private static final int BEFORE_THE_RULE = 12;
  /** What an instance of the previous release could trip on: statements that remove, rename or narrow. */
  private static final Pattern CONTRACTS = Pattern.compile(
      "(?is)\\b(DROP\\s+(TABLE|COLUMN|VIEW|TYPE|SCHEMA)|RENAME\\b|ALTER\\s+COLUMN\\s+\\S+\\s+(SET\\s+NOT\\s+NULL|TYPE\\b"
          + "|SET\\s+DATA\\s+TYPE)|ADD\\s+COLUMN\\s+(IF\\s+NOT\\s+EXISTS\\s+)?\\S+\\s+[^,;]*\\bNOT\\s+NULL\\b(?![^,;]*\\bDEFAULT\\b)"
          + "|TRUNCATE\\b|DELETE\\s+FROM\\b)");

  static List<String> contractsIn(String sql) {
    String code = sql.replaceAll("--[^\\n]*", "");
    List<String> found = new ArrayList<>();
    var m = CONTRACTS.matcher(code);
    while (m.find()) {
      found.add(m.group().replaceAll("\\s+", " "));
    }
    return found;
  }

  @Test
  void everyMigrationAfterTheRuleOnlyExpandsUnlessItIsAContractMigration() throws IOException {
    for (String name : Migrations.listed()) {
      var v = java.util.regex.Pattern.compile("V(\\d+)__(.+)\\.sql").matcher(name);
      assertTrue(v.matches(), "migration names are V<n>__<what>.sql: " + name);
      if (Integer.parseInt(v.group(1)) <= BEFORE_THE_RULE || v.group(2).startsWith("contract_")) {
        continue;
      }
      List<String> found = contractsIn(read("db/migration/" + name));
      assertEquals(List.of(), found, name + " removes or narrows what the previous release reads: move that to a later "
          + "release's V<n>__contract_<what>.sql (docs/scale-out.md, rolling upgrades)");
    }
  }

  @Test
  void theRuleTellsExpandFromContract() {
    assertEquals(List.of(), contractsIn("CREATE TABLE t (id UUID PRIMARY KEY);\nALTER TABLE hosts ADD COLUMN x TEXT;\n"
        + "ALTER TABLE hosts ADD COLUMN y INT NOT NULL DEFAULT 0;\nCREATE INDEX i ON hosts (x);\n-- DROP COLUMN in a comment"));
    assertEquals(5, contractsIn("ALTER TABLE hosts DROP COLUMN x;\nALTER TABLE hosts RENAME COLUMN a TO b;\n"
        + "ALTER TABLE hosts ALTER COLUMN c SET NOT NULL;\nALTER TABLE hosts ADD COLUMN z INT NOT NULL;\nDROP TABLE old;")
        .size());
    // the grandfathered V10 dropped a column (DROP INDEX is harmless to the previous release: it only slows it)
    assertEquals(List.of("DROP COLUMN"), contractsIn(read("db/migration/V10__event_outbox_table.sql")));
  }

  private static String read(String resource) {
    try (InputStream in = Migrations.class.getClassLoader().getResourceAsStream(resource)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
