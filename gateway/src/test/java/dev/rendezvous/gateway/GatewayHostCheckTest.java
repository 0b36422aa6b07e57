package dev.rendezvous.gateway;

import static dev.rendezvous.gateway.TestBed.await;
import static dev.rendezvous.gateway.TestBed.newId;
import static dev.rendezvous.gateway.TestBed.token;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rendezvous.bus.event.StepReplyReceived;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.ext.web.client.HttpResponse;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Hosts the service does not have (deleted, or never registered) get upstream's 404 once they have been missing for a
 * whole recheck interval while the service keeps up. A gateway of its own on the real bus, with a host check over a
 * set the test edits (the service's table stands behind it in the application); sweeps are driven by the test.
 */
class GatewayHostCheckTest {

    private static final Duration RECHECK = Duration.ofSeconds(1);

    private final TestBed bed = TestBed.get();
    private final Set<HostCheck.Host> table = ConcurrentHashMap.newKeySet();
    private final AtomicInteger questions = new AtomicInteger();
    private volatile double pace = 1.0;
    private volatile boolean databaseDown;
    /** When set, the next question waits here until the test answers it. */
    private volatile io.vertx.core.Promise<Set<HostCheck.Host>> held;
    private volatile boolean holdNext;
    private GatewayVerticle verticle;
    private String deployment;

    @BeforeEach
    void start() throws Exception {
        verticle = new GatewayVerticle(bed.config().withHostRecheck(RECHECK), bed.producer::publish,
                new SimpleMeterRegistry());
        deployment = await(bed.vertx.deployVerticle(verticle));
        verticle.gateway().stopSweeping();
        verticle.gateway().pacing(() -> pace);
        verticle.gateway().hostCheck(hosts -> {
            questions.incrementAndGet();
            if (databaseDown) {
                return Future.failedFuture(new IllegalStateException("database down"));
            }
            Set<HostCheck.Host> found = Set.copyOf(hosts.stream().filter(table::contains).toList());
            if (holdNext) {
                holdNext = false;
                held = io.vertx.core.Promise.promise();
                return held.future(); // answered by the test, with what the table had when asked
            }
            return Future.succeededFuture(found);
        });
    }

    @AfterEach
    void stop() throws Exception {
        await(bed.vertx.undeploy(deployment));
    }

    private HttpResponse<Buffer> send(HttpMethod method, String path, String token, String body) throws Exception {
        var request = bed.http.request(method, verticle.actualPort(), "127.0.0.1", path)
                .putHeader(AgentAuth.HEADER, token);
        return await(body == null ? request.send() : request.sendBuffer(Buffer.buffer(body)));
    }

    private static String instructions(String infraEnv, String host) {
        return "/api/assisted-install/v2/infra-envs/" + infraEnv + "/hosts/" + host + "/instructions";
    }

    private HttpResponse<Buffer> poll(String infraEnv, String host, String token) throws Exception {
        return send(HttpMethod.GET, instructions(infraEnv, host) + "?wait_seconds=0", token, null);
    }

    private HttpResponse<Buffer> reply(String infraEnv, String host, String token, String stepId) throws Exception {
        return send(HttpMethod.POST, instructions(infraEnv, host), token, "{\"step_id\":\"" + stepId
                + "\",\"step_type\":\"inventory\",\"exit_code\":0,\"output\":\"{}\"}");
    }

    private HttpResponse<Buffer> register(String infraEnv, String host, String token) throws Exception {
        return send(HttpMethod.POST, "/api/assisted-install/v2/infra-envs/" + infraEnv + "/hosts", token,
                "{\"host_id\":\"" + host + "\",\"discovery_agent_version\":\"test\"}");
    }

    /** Two sweeps a recheck interval apart: a host missing at both is evicted. */
    private int sweepTwice() throws Exception {
        int evicted = await(verticle.gateway().verifyHosts());
        Thread.sleep(RECHECK.toMillis() + 50);
        return evicted + await(verticle.gateway().verifyHosts());
    }

    @Test
    void aHostNeverRegisteredIsAnswered404AfterARecheckAndItsRepliesAreNotPublished() throws Exception {
        String infraEnv = newId();
        String host = newId();
        String token = token(infraEnv, null);
        assertEquals(200, poll(infraEnv, host, token).statusCode(), "no verdict before the service was asked");

        assertEquals(1, sweepTwice());
        HttpResponse<Buffer> refused = poll(infraEnv, host, token);
        assertEquals(404, refused.statusCode(), refused.bodyAsString());
        assertEquals("404", AgentWire.JSON.readTree(refused.bodyAsString()).path("code").asText());
        assertTrue(refused.bodyAsString().contains(host), refused.bodyAsString());

        String stepId = "inventory-" + newId().substring(0, 8);
        assertEquals(404, reply(infraEnv, host, token, stepId).statusCode());
        // a reply of a known host published after it comes off the bus; the refused one never does
        String known = newId();
        table.add(new HostCheck.Host(infraEnv, known));
        assertEquals(204, reply(infraEnv, known, token, stepId).statusCode());
        bed.awaitEvent(e -> known.equals(e.hostId()) && e.payload() instanceof StepReplyReceived);
        assertEquals(0, bed.countEvents(e -> host.equals(e.hostId()) && e.payload() instanceof StepReplyReceived));
    }

    @Test
    void aDeletedHostsHeldPollIsAnswered404AndARegistrationElsewhereLiftsIt() throws Exception {
        String infraEnv = newId();
        String host = newId();
        String token = token(infraEnv, null);
        assertEquals(201, register(infraEnv, host, token).statusCode());
        table.add(new HostCheck.Host(infraEnv, host));
        Thread.sleep(RECHECK.toMillis() + 50);
        assertEquals(0, sweepTwice(), "a registered host stays");

        var held = bed.http.request(HttpMethod.GET, verticle.actualPort(), "127.0.0.1",
                instructions(infraEnv, host) + "?wait_seconds=30").putHeader(AgentAuth.HEADER, token).send();
        Thread.sleep(200);
        table.remove(new HostCheck.Host(infraEnv, host)); // the user deleted it
        Thread.sleep(RECHECK.toMillis() + 50);
        assertEquals(1, sweepTwice());
        HttpResponse<Buffer> answer = held.toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        assertEquals(404, answer.statusCode(), "the held poll is answered at once, not after 30 s");

        int asked = questions.get();
        assertEquals(404, poll(infraEnv, host, token).statusCode());
        assertEquals(asked + 2, questions.get(), "a host answered 404 before is asked about again, twice");
        table.add(new HostCheck.Host(infraEnv, host)); // registered again through another gateway
        assertEquals(200, poll(infraEnv, host, token).statusCode());
    }

    @Test
    void aRegistrationElsewhereStillOnItsWayLiftsThe404() throws Exception {
        String infraEnv = newId();
        String host = newId();
        String token = token(infraEnv, null);
        assertEquals(200, poll(infraEnv, host, token).statusCode());
        assertEquals(1, sweepTwice());
        assertEquals(404, poll(infraEnv, host, token).statusCode());

        // the host booted again and registered through another gateway; its poll comes here before the service wrote
        // the row (missing at the first question), which lands within the confirmation delay
        var polled = bed.http.request(HttpMethod.GET, verticle.actualPort(), "127.0.0.1",
                instructions(infraEnv, host) + "?wait_seconds=0").putHeader(AgentAuth.HEADER, token).send();
        Thread.sleep(RECHECK.toMillis() / 3);
        table.add(new HostCheck.Host(infraEnv, host));
        assertEquals(200, polled.toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS).statusCode());

        pace = 3.0; // and while the service is behind, a host answered 404 before is served without a question
        String other = newId();
        assertEquals(200, poll(infraEnv, other, token).statusCode());
        pace = 1.0;
        assertEquals(1, sweepTwice());
        pace = 3.0;
        int asked = questions.get();
        assertEquals(200, poll(infraEnv, other, token).statusCode());
        assertEquals(asked, questions.get());
    }

    @Test
    void noVerdictWhileTheServiceIsBehindOrCannotAnswer() throws Exception {
        String infraEnv = newId();
        String host = newId();
        String token = token(infraEnv, null);
        assertEquals(200, poll(infraEnv, host, token).statusCode());

        pace = 3.0; // a backlog: the registration may still be in it
        assertEquals(0, sweepTwice());
        assertEquals(200, poll(infraEnv, host, token).statusCode());

        pace = 1.0;
        assertEquals(0, await(verticle.gateway().verifyHosts()), "missing only since the service caught up");
        databaseDown = true;
        assertEquals(0, sweepTwice(), "no answer, no verdict");
        assertEquals(200, poll(infraEnv, host, token).statusCode());

        databaseDown = false;
        assertEquals(1, await(verticle.gateway().verifyHosts()), "missing for a recheck since the service caught up");
        assertEquals(404, poll(infraEnv, host, token).statusCode());

        databaseDown = true;
        assertEquals(200, poll(infraEnv, host, token).statusCode(), "asked again, no answer: no verdict, served");
    }

    @Test
    void aRegistrationHereIsNotTakenForMissingWhileTheServiceHandlesIt() throws Exception {
        String infraEnv = newId();
        String host = newId();
        String token = token(infraEnv, null);
        assertEquals(201, register(infraEnv, host, token).statusCode());
        // the service has not written the host yet: not due for a question within a recheck of its registration
        assertEquals(0, await(verticle.gateway().verifyHosts()));
        assertEquals(200, poll(infraEnv, host, token).statusCode());
        assertEquals(0, questions.get());

        // a host polling here, asked about, registers here while the question is out: the answer (missing) is older
        // than the registration and starts no clock
        String late = newId();
        assertEquals(200, poll(infraEnv, late, token).statusCode());
        holdNext = true;
        Future<Integer> sweep = verticle.gateway().verifyHosts();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (held == null && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertEquals(201, register(infraEnv, late, token).statusCode());
        held.complete(Set.of()); // missing
        assertEquals(0, await(sweep));
        // had the stale answer started the clock, the second of these sweeps would evict it
        assertEquals(0, sweepTwice());
        assertEquals(200, poll(infraEnv, late, token).statusCode());
    }

    @Test
    void aDeletedHostsWebsocketIsToldAndClosedWith4404() throws Exception {
        String infraEnv = newId();
        String host = newId();
        String token = token(infraEnv, null);
        TestBed.AgentSocket socket = bed.open(verticle.actualPort(), infraEnv, host, token);
        socket.hello();
        Thread.sleep(200); // attached
        assertEquals(1, sweepTwice());
        assertEquals("host-unknown", socket.next("error").path("code").asText());
        assertEquals((short) 4404, socket.closed.get(10, TimeUnit.SECONDS));
        assertEquals(0, verticle.gateway().websocketCount());

        TestBed.AgentSocket again = bed.open(verticle.actualPort(), infraEnv, host, token);
        again.hello();
        // a reply sent at once, while the host is asked about again (twice, a second apart), is not published
        String stepId = "inventory-" + newId().substring(0, 8);
        again.send("{\"type\":\"step_reply\",\"reply\":{\"step_id\":\"" + stepId
                + "\",\"step_type\":\"inventory\",\"exit_code\":0,\"output\":\"{}\"}}");
        assertEquals("host-unknown", again.next("error").path("code").asText());
        assertEquals((short) 4404, again.closed.get(10, TimeUnit.SECONDS));
        assertFalse(table.contains(new HostCheck.Host(infraEnv, host)));
        Thread.sleep(500);
        assertEquals(0, bed.countEvents(e -> host.equals(e.hostId()) && e.payload() instanceof StepReplyReceived));
    }
}
