package dev.rendezvous.gateway;

import dev.rendezvous.bus.auth.AgentTokens;
import static dev.rendezvous.gateway.TestBed.await;
import static dev.rendezvous.gateway.TestBed.newId;
import static dev.rendezvous.gateway.TestBed.step;
import static dev.rendezvous.gateway.TestBed.token;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rendezvous.bus.BusEvent;
import dev.rendezvous.bus.event.AgentPresence;
import dev.rendezvous.bus.event.DomainEventRecorded;
import dev.rendezvous.bus.event.HostProgressReported;
import dev.rendezvous.bus.event.HostRegistered;
import dev.rendezvous.bus.event.StepReplyReceived;
import dev.rendezvous.bus.event.StepsToDeliver;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.ext.web.client.HttpRequest;
import io.vertx.ext.web.client.HttpResponse;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The upstream-compatible HTTP side against the running gateway and the real embedded Kafka. */
class GatewayHttpTest {

    private final TestBed bed = TestBed.get();

    private HttpRequest<Buffer> request(HttpMethod method, String path, String token) {
        HttpRequest<Buffer> request = bed.http.request(method, bed.port, "127.0.0.1", path);
        if (token != null) {
            request.putHeader(AgentAuth.HEADER, token);
        }
        return request;
    }

    private static String hostsPath(String infraEnv) {
        return "/api/assisted-install/v2/infra-envs/" + infraEnv + "/hosts";
    }

    private static String instructionsPath(String infraEnv, String host) {
        return hostsPath(infraEnv) + "/" + host + "/instructions";
    }

    private HttpResponse<Buffer> register(String infraEnv, String host, String token) throws Exception {
        return await(request(HttpMethod.POST, hostsPath(infraEnv), token).sendBuffer(Buffer.buffer(
                "{\"host_id\":\"" + host + "\",\"discovery_agent_version\":\"quay.io/edge/agent:1\"}")));
    }

    private static JsonNode json(HttpResponse<Buffer> response) throws Exception {
        return AgentWire.JSON.readTree(response.bodyAsString());
    }

    @Test
    void registrationAnswers201WithAHostAndTheRunnerCommandAndPublishesHostRegistered() throws Exception {
        String infraEnv = newId();
        String cluster = newId();
        String host = newId();
        HttpResponse<Buffer> response = register(infraEnv, host, token(infraEnv, cluster));

        assertEquals(201, response.statusCode(), response.bodyAsString());
        JsonNode body = json(response);
        assertEquals("Host", body.get("kind").asText());
        assertEquals(host, body.get("id").asText());
        assertEquals(infraEnv, body.get("infra_env_id").asText());
        assertEquals(cluster, body.get("cluster_id").asText());
        assertEquals("discovering", body.get("status").asText());
        assertEquals("/api/assisted-install/v2/infra-envs/" + infraEnv + "/hosts/" + host, body.get("href").asText());
        assertEquals("quay.io/edge/agent:1", body.get("discovery_agent_version").asText());
        assertNotNull(body.get("registered_at").asText());
        JsonNode command = body.get("next_step_runner_command");
        assertEquals(1, command.get("args").size());
        JsonNode request = AgentWire.JSON.readTree(command.get("args").get(0).asText());
        assertEquals(infraEnv, request.get("infra_env_id").asText());
        assertEquals(host, request.get("host_id").asText());
        assertEquals("quay.io/edge/agent:1", request.get("agent_version").asText());
        assertTrue(command.get("retry_seconds").asInt() > 0);

        BusEvent event = bed.awaitEvent(e -> e.payload() instanceof HostRegistered && host.equals(e.hostId()));
        HostRegistered registered = (HostRegistered) event.payload();
        assertEquals(infraEnv, registered.infraEnvId());
        assertEquals(cluster, registered.clusterId());
        assertEquals(cluster, event.partitionKey());
    }

    @Test
    void anUnboundHostIsDiscoveringUnboundAndKeyedByItsInfraEnv() throws Exception {
        String infraEnv = newId();
        String host = newId();
        HttpResponse<Buffer> response = register(infraEnv, host, token(infraEnv, null));
        assertEquals(201, response.statusCode());
        assertEquals("discovering-unbound", json(response).get("status").asText());
        assertTrue(json(response).get("cluster_id").isNull());
        BusEvent event = bed.awaitEvent(e -> e.payload() instanceof HostRegistered && host.equals(e.hostId()));
        assertEquals(infraEnv, event.partitionKey());
    }

    @Test
    void stepsPlannedRightAfterRegistrationWaitForTheFirstPollWhichAnswersAtOnce() throws Exception {
        String infraEnv = newId();
        String host = newId();
        String token = token(infraEnv, null);
        assertEquals(201, register(infraEnv, host, token).statusCode());
        StepsToDeliver.Step inventory = step("inventory");
        bed.publishSteps(null, infraEnv, host, inventory);
        Thread.sleep(300); // let the gateway's steps reader take it

        long start = System.nanoTime();
        HttpResponse<Buffer> response = await(request(HttpMethod.GET, instructionsPath(infraEnv, host) + "?wait_seconds=20", token).send());
        long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertEquals(200, response.statusCode());
        JsonNode steps = json(response);
        assertEquals(inventory.stepId(), steps.get("instructions").get(0).get("step_id").asText());
        assertEquals("continue", steps.get("post_step_action").asText());
        assertTrue(tookMillis < 5000, "answered at once, took " + tookMillis + " ms");
        // the first poll after a registration here needs no presence event: the registration told the service
        Thread.sleep(300);
        assertEquals(0, bed.countEvents(e -> e.payload() instanceof AgentPresence && host.equals(e.hostId())));
    }

    @Test
    void stepsPlannedBeforeTheRegistrationIsAcknowledgedStillReachTheFirstPoll() throws Exception {
        String infraEnv = newId();
        String host = newId();
        String token = token(infraEnv, null);
        StepsToDeliver.Step inventory = step("inventory");
        // The service can plan a host before the registration's publish is acknowledged to the gateway: here the
        // acknowledgement comes 1.5 s after the host's first steps are on the bus.
        BusPublisher lateAck = event -> {
            CompletableFuture<?> sent = bed.producer.publish(event).toCompletableFuture();
            if (!(event.payload() instanceof HostRegistered) || !host.equals(event.hostId())) {
                return sent;
            }
            return sent.thenCompose(x -> bed.producer.publish(BusEvent.of(null, infraEnv, host,
                            new StepsToDeliver(0, StepsToDeliver.CONTINUE, java.util.List.of(inventory)))))
                    .thenCompose(x -> CompletableFuture.supplyAsync(() -> x,
                            CompletableFuture.delayedExecutor(1500, TimeUnit.MILLISECONDS)));
        };
        GatewayVerticle gateway = new GatewayVerticle(bed.config(), lateAck, new io.micrometer.core.instrument.simple.SimpleMeterRegistry());
        String deployment = await(bed.vertx.deployVerticle(gateway));
        try {
            HttpResponse<Buffer> registered = await(bed.http.request(HttpMethod.POST, gateway.actualPort(), "127.0.0.1",
                    hostsPath(infraEnv)).putHeader(AgentAuth.HEADER, token).sendBuffer(Buffer.buffer(
                    "{\"host_id\":\"" + host + "\"}")));
            assertEquals(201, registered.statusCode(), registered.bodyAsString());

            long start = System.nanoTime();
            HttpResponse<Buffer> response = await(bed.http.request(HttpMethod.GET, gateway.actualPort(), "127.0.0.1",
                    instructionsPath(infraEnv, host) + "?wait_seconds=10").putHeader(AgentAuth.HEADER, token).send());
            long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertEquals(200, response.statusCode());
            assertEquals(1, json(response).get("instructions").size(), response.bodyAsString());
            assertEquals(inventory.stepId(), json(response).get("instructions").get(0).get("step_id").asText());
            assertTrue(tookMillis < 5000, "answered at once, took " + tookMillis + " ms");
        } finally {
            await(bed.vertx.undeploy(deployment));
        }
    }

    @Test
    void aHeldPollIsAnsweredWhenAStepIsPublished() throws Exception {
        String infraEnv = newId();
        String cluster = newId();
        String host = newId();
        String token = token(infraEnv, cluster);
        // no registration here: the poll attaches the host, which announces it (connected → the service re-plans)
        CompletableFuture<HttpResponse<Buffer>> poll = request(HttpMethod.GET,
                instructionsPath(infraEnv, host) + "?wait_seconds=30", token).send().toCompletionStage().toCompletableFuture();
        BusEvent connected = bed.awaitEvent(e -> e.payload() instanceof AgentPresence p && host.equals(e.hostId())
                && AgentPresence.CONNECTED.equals(p.state()));
        assertEquals(AgentPresence.LONG_POLL, ((AgentPresence) connected.payload()).transport());
        assertEquals(cluster, connected.partitionKey());
        Thread.sleep(200);
        assertTrue(!poll.isDone(), "the poll is held while nothing is planned");

        StepsToDeliver.Step step = step("free-network-addresses");
        long published = System.nanoTime();
        bed.publishSteps(cluster, infraEnv, host, step);
        HttpResponse<Buffer> response = poll.get(10, TimeUnit.SECONDS);
        long afterPublishMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - published);
        assertEquals(200, response.statusCode());
        assertEquals(step.stepId(), json(response).get("instructions").get(0).get("step_id").asText());
        assertTrue(afterPublishMillis < 5000, "delivered " + afterPublishMillis + " ms after publish");
        assertTrue(bed.registry.find(GatewayMetrics.DELIVERY_LATENCY).tag("transport", AgentPresence.LONG_POLL).timer().count() > 0);
    }

    @Test
    void aHeldPollWithNothingPlannedAnswersEmptyStepsAfterTheHoldTime() throws Exception {
        String infraEnv = newId();
        String host = newId();
        long start = System.nanoTime();
        HttpResponse<Buffer> response = await(request(HttpMethod.GET,
                instructionsPath(infraEnv, host) + "?wait_seconds=1", token(infraEnv, null)).send());
        long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertEquals(200, response.statusCode());
        JsonNode steps = json(response);
        assertEquals(0, steps.get("instructions").size());
        assertEquals(0, steps.get("next_instruction_seconds").asInt());
        assertEquals("continue", steps.get("post_step_action").asText());
        assertTrue(tookMillis >= 900 && tookMillis < 5000, "held ~1 s, took " + tookMillis + " ms");
    }

    @Test
    void aStepReplyIsPublishedThen204() throws Exception {
        String infraEnv = newId();
        String cluster = newId();
        String host = newId();
        HttpResponse<Buffer> response = await(request(HttpMethod.POST, instructionsPath(infraEnv, host), token(infraEnv, cluster))
                .sendBuffer(Buffer.buffer("{\"step_type\":\"inventory\",\"step_id\":\"inventory-1a2b3c4d\",\"exit_code\":0,"
                        + "\"output\":\"{\\\"cpu\\\":{}}\",\"error\":\"\",\"unknown_field\":true}")));
        assertEquals(204, response.statusCode());
        BusEvent event = bed.awaitEvent(e -> e.payload() instanceof StepReplyReceived && host.equals(e.hostId()));
        StepReplyReceived reply = (StepReplyReceived) event.payload();
        assertEquals("inventory-1a2b3c4d", reply.stepId());
        assertEquals("{\"cpu\":{}}", reply.output());
        assertEquals(cluster, event.partitionKey());
        assertTrue(bed.counter(GatewayMetrics.REPLIES_RECEIVED, "step_type", "inventory") >= 1);
    }

    @Test
    void installerProgressIsPublishedThen200AndBadStagesAre400() throws Exception {
        String infraEnv = newId();
        String cluster = newId();
        String host = newId();
        String path = hostsPath(infraEnv) + "/" + host + "/progress";
        HttpResponse<Buffer> ok = await(request(HttpMethod.PUT, path, token(infraEnv, cluster)).sendBuffer(Buffer.buffer(
                "{\"current_stage\":\"Writing image to disk\",\"progress_info\":\"45%\"}")));
        assertEquals(200, ok.statusCode(), ok.bodyAsString());
        BusEvent event = bed.awaitEvent(e -> e.payload() instanceof HostProgressReported && host.equals(e.hostId()));
        HostProgressReported progress = (HostProgressReported) event.payload();
        assertEquals("Writing image to disk", progress.currentStage());
        assertEquals("45%", progress.progressInfo());
        assertEquals(cluster, event.partitionKey());

        HttpResponse<Buffer> bad = await(request(HttpMethod.PUT, path, token(infraEnv, cluster))
                .sendBuffer(Buffer.buffer("{\"current_stage\":\"Daydreaming\"}")));
        assertEquals(400, bad.statusCode());
        assertTrue(bad.bodyAsString().contains("current_stage"), bad.bodyAsString());
        assertEquals(403, await(request(HttpMethod.PUT, path, token(newId(), null))
                .sendBuffer(Buffer.buffer("{\"current_stage\":\"Done\"}"))).statusCode());
    }

    @Test
    void aMissingOrInvalidTokenIs401AndAnotherInfraEnvsTokenIs403OnEveryPath() throws Exception {
        String infraEnv = newId();
        String other = newId();
        String host = newId();
        String otherToken = token(other, null);
        String forged = AgentTokens.issue("another-secret-entirely-1234", infraEnv, null);
        for (String path : new String[] {hostsPath(infraEnv), instructionsPath(infraEnv, host)}) {
            for (HttpMethod method : path.endsWith("hosts") ? new HttpMethod[] {HttpMethod.POST}
                    : new HttpMethod[] {HttpMethod.GET, HttpMethod.POST}) {
                assertEquals(401, await(request(method, path, null).send()).statusCode(), method + " " + path);
                assertEquals(401, await(request(method, path, forged).send()).statusCode(), method + " " + path);
                HttpResponse<Buffer> forbidden = await(request(method, path, otherToken).send());
                assertEquals(403, forbidden.statusCode(), method + " " + path);
                assertEquals("Error", json(forbidden).get("kind").asText());
                assertEquals(403, json(forbidden).get("id").asInt());
            }
        }
        assertTrue(bed.counter(GatewayMetrics.MESSAGES_REJECTED, "reason", GatewayMetrics.REASON_FORBIDDEN) >= 3);
    }

    @Test
    void malformedInputIs400NamingTheFieldAndTheConnectionStaysUsable() throws Exception {
        String infraEnv = newId();
        String host = newId();
        String token = token(infraEnv, null);
        HttpResponse<Buffer> notJson = await(request(HttpMethod.POST, hostsPath(infraEnv), token).sendBuffer(Buffer.buffer("{oops")));
        assertEquals(400, notJson.statusCode());
        assertTrue(json(notJson).get("reason").asText().contains("malformed JSON"));

        HttpResponse<Buffer> noHost = await(request(HttpMethod.POST, hostsPath(infraEnv), token).sendBuffer(Buffer.buffer("{}")));
        assertEquals(400, noHost.statusCode());
        assertTrue(json(noHost).get("reason").asText().startsWith("host_id"));

        HttpResponse<Buffer> badHost = await(request(HttpMethod.POST, hostsPath(infraEnv), token)
                .sendBuffer(Buffer.buffer("{\"host_id\":\"nope\"}")));
        assertTrue(json(badHost).get("reason").asText().contains("UUID"));

        HttpResponse<Buffer> noStepId = await(request(HttpMethod.POST, instructionsPath(infraEnv, host), token)
                .sendBuffer(Buffer.buffer("{\"step_type\":\"inventory\"}")));
        assertEquals(400, noStepId.statusCode());
        assertTrue(json(noStepId).get("reason").asText().startsWith("step_id"));

        HttpResponse<Buffer> badExit = await(request(HttpMethod.POST, instructionsPath(infraEnv, host), token)
                .sendBuffer(Buffer.buffer("{\"step_type\":\"inventory\",\"step_id\":\"a\",\"exit_code\":{}}")));
        assertEquals(400, badExit.statusCode());
        assertTrue(json(badExit).get("reason").asText().startsWith("exit_code"), json(badExit).toString());

        HttpResponse<Buffer> badWait = await(request(HttpMethod.GET, instructionsPath(infraEnv, host) + "?wait_seconds=abc", token).send());
        assertEquals(400, badWait.statusCode());
        assertTrue(json(badWait).get("reason").asText().startsWith("wait_seconds"));

        HttpResponse<Buffer> badPathHost = await(request(HttpMethod.GET, instructionsPath(infraEnv, "x") + "?wait_seconds=0", token).send());
        assertEquals(400, badPathHost.statusCode());

        assertEquals(201, register(infraEnv, host, token).statusCode());
    }

    @Test
    void anOversizedBodyIs413AndRecordedAsAnEvent() throws Exception {
        String infraEnv = newId();
        String host = newId();
        String token = token(infraEnv, null);
        // an inventory of ~15,000 disks is about this big
        StringBuilder output = new StringBuilder("[");
        for (int i = 0; i < 15_000; i++) {
            output.append("{\\\"name\\\":\\\"sd").append(i).append("\\\",\\\"size_bytes\\\":1000000000000,\\\"by_path\\\":\\\"/dev/disk/by-path/pci-0000:00:1f.2-ata-").append(i)
                    .append("\\\",\\\"model\\\":\\\"VIRTUAL-DISK-MODEL-X\\\",\\\"serial\\\":\\\"SERIAL").append(i)
                    .append("\\\",\\\"vendor\\\":\\\"ATA\\\",\\\"wwn\\\":\\\"0x5000c500a1b2c3d4\\\",\\\"drive_type\\\":\\\"HDD\\\",\\\"hctl\\\":\\\"0:0:0:0\\\",")
                    .append("\\\"installation_eligibility\\\":{\\\"eligible\\\":true,\\\"not_eligible_reasons\\\":[]}},");
        }
        output.append("{}]");
        String body = "{\"step_type\":\"inventory\",\"step_id\":\"inventory-big\",\"exit_code\":0,\"output\":\"" + output + "\"}";
        assertTrue(body.length() > 4 * 1024 * 1024, "body is " + body.length() + " bytes");

        HttpResponse<Buffer> response = await(request(HttpMethod.POST, instructionsPath(infraEnv, host), token)
                .sendBuffer(Buffer.buffer(body)));
        assertEquals(413, response.statusCode());
        assertEquals("Error", json(response).get("kind").asText());
        BusEvent event = bed.awaitEvent(e -> e.payload() instanceof DomainEventRecorded d && host.equals(e.hostId())
                && "agent_message_rejected".equals(d.name()));
        assertTrue(((DomainEventRecorded) event.payload()).props().contains("too-large"));
        assertNull(bed.published.stream().filter(e -> e.payload() instanceof StepReplyReceived && host.equals(e.hostId()))
                .findAny().orElse(null));
        // the gateway is fine: a normal reply goes through
        assertEquals(204, await(request(HttpMethod.POST, instructionsPath(infraEnv, host), token)
                .sendBuffer(Buffer.buffer("{\"step_type\":\"inventory\",\"step_id\":\"inventory-small\"}"))).statusCode());
    }

    @Test
    void metricsRenderWithUnitsInTheirNames() {
        String scrape = bed.registry.scrape();
        assertTrue(scrape.contains("rdv_gateway_agents_connected{transport=\"websocket\"}"), scrape);
        assertTrue(scrape.contains("rdv_gateway_agents_connected{transport=\"long-poll\"}"));
    }

    @Test
    void aPollAfterManyPlanChangesGetsOneCurrentStepSetWithUndeliveredOneShotSteps() throws Exception {
        String infraEnv = newId();
        String host = newId();
        String token = token(infraEnv, null);
        assertEquals(201, register(infraEnv, host, token).statusCode());
        StepsToDeliver.Step install = step("install");
        bed.publishSteps(null, infraEnv, host, install, step("dhcp-lease-allocate"));
        StepsToDeliver.Step latestInventory = null;
        for (int i = 0; i < 20; i++) {
            latestInventory = step("inventory");
            bed.publishSteps(null, infraEnv, host, latestInventory, step("connectivity-check"));
        }
        Thread.sleep(500); // let the gateway's steps reader take them all
        HttpResponse<Buffer> response = await(request(HttpMethod.GET, instructionsPath(infraEnv, host), token).send());
        assertEquals(200, response.statusCode());
        JsonNode instructions = json(response).get("instructions");
        java.util.List<String> types = new java.util.ArrayList<>();
        instructions.forEach(i -> types.add(i.get("step_type").asText()));
        assertEquals(java.util.List.of("install", "inventory", "connectivity-check"), types,
                "the latest plan, plus the one-shot install it does not repeat; nothing twice");
        assertEquals(install.stepId(), instructions.get(0).get("step_id").asText());
        assertEquals(latestInventory.stepId(), instructions.get(1).get("step_id").asText(), "the newest plan's own steps");
    }

    @Test
    void aConnectivityCheckLeftToTheGatewayReachesThePollWithItsClustersTargetsButTheHostsOwn() throws Exception {
        String cluster = newId();
        String infraEnv = newId();
        String host = newId();
        String token = token(infraEnv, cluster);
        assertEquals(201, register(infraEnv, host, token).statusCode());
        BusEvent registered = bed.awaitEvent(e -> e.payload() instanceof HostRegistered && host.equals(e.hostId()));
        assertTrue(((HostRegistered) registered.payload()).fillsSharedTargets(), "the service learns this gateway fills them in");
        bed.producer.publish(BusEvent.of(cluster, null, null, StepsToDeliver.targets(java.util.List.of(
                new StepsToDeliver.Target(host, "{\"host_id\":\"self\"}"),
                new StepsToDeliver.Target(newId(), "{\"host_id\":\"peer\"}"))))).get(30, TimeUnit.SECONDS);
        StepsToDeliver.Step check = new StepsToDeliver.Step("connectivity-check", "connectivity-check-1",
                java.util.List.of(), true);
        bed.publishSteps(cluster, infraEnv, host, step("inventory"), check);
        Thread.sleep(300); // let the gateway's steps reader take both
        HttpResponse<Buffer> response = await(request(HttpMethod.GET, instructionsPath(infraEnv, host), token).send());
        assertEquals(200, response.statusCode());
        JsonNode instructions = json(response).get("instructions");
        assertEquals("connectivity-check", instructions.get(1).get("step_type").asText());
        assertEquals("[{\"host_id\":\"peer\"}]", instructions.get(1).get("args").get(0).asText());
        assertTrue(instructions.get(1).get("shared_targets") == null, "upstream's step shape: " + instructions);
    }

    @Test
    void whileTheServiceIsBehindAgentsAreToldToComeBackLater() throws Exception {
        String infraEnv = newId();
        String host = newId();
        String token = token(infraEnv, null);
        assertEquals(201, register(infraEnv, host, token).statusCode());
        try {
            bed.gateway.gateway().pacing(() -> 4.0);
            bed.producer.publish(BusEvent.of(null, infraEnv, host, new StepsToDeliver(60, StepsToDeliver.CONTINUE,
                    java.util.List.of(step("inventory"))))).get(30, TimeUnit.SECONDS);
            Thread.sleep(300);
            HttpResponse<Buffer> stretched = await(request(HttpMethod.GET, instructionsPath(infraEnv, host), token).send());
            assertEquals(240, json(stretched).get("next_instruction_seconds").asInt(), "60 s stretched four times");
            HttpResponse<Buffer> idle = await(request(HttpMethod.GET, instructionsPath(infraEnv, host) + "?wait_seconds=0",
                    token).send());
            assertEquals(4, json(idle).get("next_instruction_seconds").asInt(), "'again at once' becomes a pause");
            assertTrue(bed.registry.scrape().contains("rdv_gateway_pace_factor 4.0"), "the factor is a metric");
        } finally {
            bed.gateway.gateway().pacing(() -> 1.0);
        }
        bed.producer.publish(BusEvent.of(null, infraEnv, host, new StepsToDeliver(60, StepsToDeliver.CONTINUE,
                java.util.List.of(step("inventory"))))).get(30, TimeUnit.SECONDS);
        Thread.sleep(300);
        HttpResponse<Buffer> normal = await(request(HttpMethod.GET, instructionsPath(infraEnv, host), token).send());
        assertEquals(60, json(normal).get("next_instruction_seconds").asInt(), "caught up: the plan's own cadence");
    }

    @Test
    void whileTheServiceIsBehindAReplyWaitsBeforeTheBusUntilItCatchesUpOrTheHoldEnds() throws Exception {
        String infraEnv = newId();
        String cluster = newId();
        String token = token(infraEnv, cluster);
        java.util.concurrent.atomic.AtomicReference<Double> pace = new java.util.concurrent.atomic.AtomicReference<>(3.0);
        String body = inventoryReply("inventory-00000001");
        try {
            bed.gateway.gateway().pacing(pace::get);
            bed.gateway.gateway().replyHoldMax(java.time.Duration.ofSeconds(30));
            String first = newId();
            String second = newId();
            long start = System.nanoTime();
            Future<HttpResponse<Buffer>> a = request(HttpMethod.POST, instructionsPath(infraEnv, first), token)
                    .sendBuffer(Buffer.buffer(body));
            Future<HttpResponse<Buffer>> b = request(HttpMethod.POST, instructionsPath(infraEnv, second), token)
                    .sendBuffer(Buffer.buffer(body));
            // an agent that gives up while held (its connection closed) is never answered, so its reply is not taken
            String gone = newId();
            try (java.net.Socket raw = new java.net.Socket("127.0.0.1", bed.port)) {
                byte[] payload = body.getBytes(java.nio.charset.StandardCharsets.UTF_8);
                raw.getOutputStream().write(("POST " + instructionsPath(infraEnv, gone) + " HTTP/1.1\r\nHost: x\r\n"
                        + AgentAuth.HEADER + ": " + token + "\r\nContent-Type: application/json\r\nContent-Length: "
                        + payload.length + "\r\n\r\n").getBytes(java.nio.charset.StandardCharsets.US_ASCII));
                raw.getOutputStream().write(payload);
                raw.getOutputStream().flush();
                Thread.sleep(300);
            }
            Thread.sleep(400);
            assertFalse(a.isComplete() || b.isComplete(), "held while the service is behind");
            assertTrue(bed.registry.scrape().contains("rdv_gateway_replies_waiting 3.0"), bed.registry.scrape());
            assertEquals(0, bed.countEvents(e -> first.equals(e.hostId()) || second.equals(e.hostId())),
                    "not on the bus yet");
            pace.set(1.0); // caught up
            assertEquals(204, await(a).statusCode());
            assertEquals(204, await(b).statusCode());
            assertTrue((System.nanoTime() - start) / 1_000_000 < 5000, "let go once caught up, not at the hold's end");
            bed.awaitEvent(e -> e.payload() instanceof StepReplyReceived && second.equals(e.hostId()));
            Thread.sleep(300);
            assertEquals(0, bed.countEvents(e -> gone.equals(e.hostId())), "the reply of an agent gone while held");
            assertTrue(bed.counter(GatewayMetrics.MESSAGES_REJECTED, "reason", GatewayMetrics.REASON_GONE_WHILE_HELD) >= 1);

            // a service that stays behind still gets the reply once the hold ends: slowed, never refused
            pace.set(3.0);
            bed.gateway.gateway().replyHoldMax(java.time.Duration.ofMillis(600));
            String third = newId();
            long t0 = System.nanoTime();
            assertEquals(204, await(request(HttpMethod.POST, instructionsPath(infraEnv, third), token)
                    .sendBuffer(Buffer.buffer(body))).statusCode());
            long took = (System.nanoTime() - t0) / 1_000_000;
            assertTrue(took >= 550 && took < 4000, "held for the hold, took " + took + " ms");
            bed.awaitEvent(e -> e.payload() instanceof StepReplyReceived && third.equals(e.hostId()));
            assertTrue(bed.registry.find(GatewayMetrics.REPLIES_HELD).counter().count() >= 3);
        } finally {
            bed.gateway.gateway().pacing(() -> 1.0);
            bed.gateway.gateway().replyHoldMax(java.time.Duration.ofMillis(Gateway.DEFAULT_REPLY_HOLD_MS));
        }
    }

    @Test
    void whileTheServiceIsBehindARegistrationAndAProgressReportWaitBeforeTheBusAsRepliesDo() throws Exception {
        String infraEnv = newId();
        String cluster = newId();
        String token = token(infraEnv, cluster);
        String registering = newId();
        String installing = newId();
        java.util.concurrent.atomic.AtomicReference<Double> pace = new java.util.concurrent.atomic.AtomicReference<>(3.0);
        try {
            bed.gateway.gateway().pacing(pace::get);
            bed.gateway.gateway().replyHoldMax(java.time.Duration.ofSeconds(30));
            Future<HttpResponse<Buffer>> registration = request(HttpMethod.POST, hostsPath(infraEnv), token)
                    .sendBuffer(Buffer.buffer("{\"host_id\":\"" + registering + "\",\"discovery_agent_version\":\"v1\"}"));
            Future<HttpResponse<Buffer>> progress = request(HttpMethod.PUT,
                    hostsPath(infraEnv) + "/" + installing + "/progress", token)
                    .sendBuffer(Buffer.buffer("{\"current_stage\":\"Writing image to disk\",\"progress_info\":\"5%\"}"));
            Thread.sleep(500);
            assertFalse(registration.isComplete() || progress.isComplete(), "held while the service is behind");
            assertEquals(0, bed.countEvents(e -> registering.equals(e.hostId()) || installing.equals(e.hostId())),
                    "not on the bus yet");
            pace.set(1.0); // caught up
            assertEquals(201, await(registration).statusCode());
            assertEquals(200, await(progress).statusCode());
            bed.awaitEvent(e -> e.payload() instanceof HostRegistered && registering.equals(e.hostId()));
            bed.awaitEvent(e -> e.payload() instanceof HostProgressReported && installing.equals(e.hostId()));
        } finally {
            bed.gateway.gateway().pacing(() -> 1.0);
            bed.gateway.gateway().replyHoldMax(java.time.Duration.ofMillis(Gateway.DEFAULT_REPLY_HOLD_MS));
        }
    }

    /** A step reply's body (an inventory with an empty output). */
    private static String inventoryReply(String stepId) {
        return "{\"step_type\":\"inventory\",\"step_id\":\"" + stepId + "\",\"exit_code\":0,"
                + "\"output\":\"{}\",\"error\":\"\"}";
    }

    interface Body {
        void run() throws Exception;
    }

    /** Runs {@code body} with the service behind (pace 3) and replies metered at {@code rate}; then as before. */
    private void metered(double rate, Body body) throws Exception {
        try {
            bed.gateway.gateway().pacing(() -> 3.0);
            bed.gateway.gateway().replyHoldMax(java.time.Duration.ofSeconds(30));
            bed.gateway.gateway().replyReleaseRate(() -> rate);
            body.run();
        } finally {
            bed.gateway.gateway().pacing(() -> 1.0);
            bed.gateway.gateway().replyHoldMax(java.time.Duration.ofMillis(Gateway.DEFAULT_REPLY_HOLD_MS));
            bed.gateway.gateway().replyReleaseRate(null);
        }
    }

    @Test
    void whileTheServiceIsBehindHeldRepliesGoInArrivalOrderAtTheReleaseRate() throws Exception {
        String infraEnv = newId();
        String token = token(infraEnv, newId());
        String body = inventoryReply("inventory-00000002");
        metered(5.0, () -> {
            java.util.List<Long> answeredAt = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
            java.util.List<Integer> order = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
            java.util.List<Future<HttpResponse<Buffer>>> sent = new java.util.ArrayList<>();
            long start = System.nanoTime();
            for (int i = 0; i < 8; i++) {
                int n = i;
                sent.add(request(HttpMethod.POST, instructionsPath(infraEnv, newId()), token).sendBuffer(Buffer.buffer(body))
                        .onSuccess(r -> {
                            answeredAt.add((System.nanoTime() - start) / 1_000_000);
                            order.add(n);
                        }));
                Thread.sleep(30); // each in after the one before
            }
            for (Future<HttpResponse<Buffer>> f : sent) {
                assertEquals(204, await(f).statusCode());
            }
            assertEquals(java.util.List.of(0, 1, 2, 3, 4, 5, 6, 7), order, "let go oldest first");
            // 5 a second: ~1.4 s from the first to the last, where all at once (or none before the hold's end) is not
            long spread = answeredAt.get(7) - answeredAt.get(0);
            assertTrue(spread >= 1000 && spread < 10_000, "answered at " + answeredAt);
        });
    }

    @Test
    void aMeteredReplyWithRoomInTheMeterGoesAtOnce() throws Exception {
        String infraEnv = newId();
        String token = token(infraEnv, newId());
        String host = newId();
        String body = inventoryReply("inventory-00000003");
        metered(10_000.0, () -> {
            double heldBefore = bed.registry.find(GatewayMetrics.REPLIES_HELD).counter().count();
            for (int i = 0; i < 20; i++) { // one connection, one reply after the other: few waiters, much room
                assertEquals(204, await(request(HttpMethod.POST, instructionsPath(infraEnv, host), token)
                        .sendBuffer(Buffer.buffer(body))).statusCode());
            }
            double held = bed.registry.find(GatewayMetrics.REPLIES_HELD).counter().count() - heldBefore;
            // the first waits for the meter's first check (nothing counted before it); the rest find room and go at
            // once, where waiting for each check capped one connection at a reply per 10 ms
            assertTrue(held <= 3, held + " of 20 replies waited for a check");
            long until = System.nanoTime() + 10_000_000_000L;
            while (bed.countEvents(e -> host.equals(e.hostId())) < 20 && System.nanoTime() < until) {
                Thread.sleep(50);
            }
            assertEquals(20, bed.countEvents(e -> host.equals(e.hostId())), "all 20 on the bus");
        });
    }
}
