/**
 * The message bus: event records, topic names, partition keys and Kafka plumbing; depends on nothing of ours.
 *
 * <ul>
 *   <li>{@link dev.rendezvous.bus.BusEvent}: the envelope (event id, time, cluster / infra-env / host ids,
 *       payload schema version) around a typed {@link dev.rendezvous.bus.event.BusPayload};
 *       partition key = cluster id, else infra-env id.</li>
 *   <li>{@link dev.rendezvous.bus.Topics}: every topic name and which payload goes where.</li>
 *   <li>{@link dev.rendezvous.bus.BusCodec}: JSON (snake_case) encoding.</li>
 *   <li>{@link dev.rendezvous.bus.BusProducer} / {@link dev.rendezvous.bus.BusConsumer}: typed Kafka clients
 *       (non-blocking publish; ordered, at-least-once consumption on a dedicated thread).</li>
 *   <li>{@link dev.rendezvous.bus.EmbeddedKafka} and {@link dev.rendezvous.bus.TopicSetup}: the in-process KRaft
 *       broker of the embedded mode, topic creation and the readiness probe.</li>
 * </ul>
 */
package dev.rendezvous.bus;
