package dev.rendezvous.image;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class ImageUrlTokensTest {
  private static final byte[] SECRET = "image-url-secret".getBytes(StandardCharsets.UTF_8);

  @Test
  void aTokenSaysItsInfraEnvGenerationAndExpiryAndIsFoundLikeUpstreamsJwt() {
    UUID id = UUID.randomUUID();
    String token = ImageUrlTokens.issue(SECRET, id, 2, 1_900_000_000L);
    ImageUrlTokens.Claims c = ImageUrlTokens.verify(SECRET, token).orElseThrow();
    assertEquals(new ImageUrlTokens.Claims(id.toString(), 2, 1_900_000_000L), c);
    assertEquals(id.toString(), ImageServer.idFromJwt(token), "the image server finds the infra-env in it");
    assertFalse(c.expired(Instant.ofEpochSecond(1_899_999_999L)));
    assertTrue(c.expired(Instant.ofEpochSecond(1_900_000_000L)));
    assertFalse(ImageUrlTokens.verify(SECRET, ImageUrlTokens.issue(SECRET, id, 0, 0)).orElseThrow()
        .expired(Instant.now().plusSeconds(86_400L * 365 * 50)), "exp 0 never expires");
  }

  @Test
  void anythingElseIsRefused() {
    String token = ImageUrlTokens.issue(SECRET, UUID.randomUUID(), 0, 1_900_000_000L);
    assertTrue(ImageUrlTokens.verify("other".getBytes(StandardCharsets.UTF_8), token).isEmpty(), "another secret");
    String[] parts = token.split("\\.");
    String later = ImageUrlTokens.issue(SECRET, UUID.randomUUID(), 0, 2_000_000_000L).split("\\.")[1];
    assertTrue(ImageUrlTokens.verify(SECRET, parts[0] + "." + later + "." + parts[2]).isEmpty(), "a payload swapped in");
    assertTrue(ImageUrlTokens.verify(SECRET, "rdv1.abc.def").isEmpty());
    assertTrue(ImageUrlTokens.verify(SECRET, null).isEmpty());
    assertTrue(ImageUrlTokens.verify(SECRET, token + "x".repeat(600)).isEmpty());
  }
}
