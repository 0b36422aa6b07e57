package dev.rendezvous.bus;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * A consumer group's lag as the broker sees it: for each partition the group has committed, the log end minus the
 * committed offset, summed. The same figure whichever instance asks, so a dashboard takes max() across instances.
 * Asynchronous (the admin client's own futures); never blocks its caller.
 */
public final class ConsumerLag implements AutoCloseable {
  private final Admin admin;

  public ConsumerLag(String bootstrapServers) {
    Properties p = new Properties();
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    p.put(AdminClientConfig.CLIENT_ID_CONFIG, "rdv-lag");
    p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
    p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 15_000);
    this.admin = Admin.create(p);
  }

  /** Records on the broker the group has not committed past; 0 for a group with no commits yet. */
  public CompletionStage<Long> lag(String groupId) {
    return admin.listConsumerGroupOffsets(groupId).partitionsToOffsetAndMetadata().toCompletionStage()
        .thenCompose(committed -> {
          Map<TopicPartition, OffsetSpec> ask = new HashMap<>();
          committed.forEach((tp, om) -> {
            if (om != null) {
              ask.put(tp, OffsetSpec.latest());
            }
          });
          if (ask.isEmpty()) {
            return CompletableFuture.completedFuture(0L);
          }
          return admin.listOffsets(ask).all().toCompletionStage().thenApply(ends -> sum(committed, ends));
        });
  }

  private static long sum(Map<TopicPartition, OffsetAndMetadata> committed,
      Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> ends) {
    long lag = 0;
    for (Map.Entry<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> e : ends.entrySet()) {
      OffsetAndMetadata c = committed.get(e.getKey());
      if (c != null) {
        lag += Math.max(0, e.getValue().offset() - c.offset());
      }
    }
    return lag;
  }

  /** The groups asked about together (for tests and tools). */
  public CompletionStage<Map<String, Long>> lags(List<String> groups) {
    Map<String, Long> out = new java.util.concurrent.ConcurrentHashMap<>();
    CompletableFuture<?>[] all = groups.stream()
        .map(g -> lag(g).thenAccept(v -> out.put(g, v)).toCompletableFuture()).toArray(CompletableFuture[]::new);
    return CompletableFuture.allOf(all).thenApply(v -> Map.copyOf(out));
  }

  @Override
  public void close() {
    admin.close(java.time.Duration.ofSeconds(5));
  }
}
