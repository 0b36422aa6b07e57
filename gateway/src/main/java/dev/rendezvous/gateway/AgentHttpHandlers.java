package dev.rendezvous.gateway;

import dev.rendezvous.bus.auth.AgentTokens;
import dev.rendezvous.bus.BusEvent;
import dev.rendezvous.bus.event.AgentPresence;
import dev.rendezvous.bus.event.HostProgressReported;
import dev.rendezvous.bus.event.StepReplyReceived;
import dev.rendezvous.bus.event.StepsToDeliver;
import dev.rendezvous.gateway.AgentInput.InvalidInput;
import dev.rendezvous.bus.auth.AgentTokens.AgentClaims;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.ext.web.RoutingContext;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

/** The upstream-compatible agent endpoints: register, GET instructions (long poll), POST step reply. */
final class AgentHttpHandlers {

    static final String AGENT_VERSION_HEADER = "discovery_agent_version";

    private final GatewayConfig config;
    private final AgentDirectory directory;
    private final GatewayEvents events;
    private final GatewayMetrics metrics;
    private final RejectionLog rejections;
    private volatile ProgressCheck progressCheck = ProgressCheck.NONE;
    private volatile InfraEnvCheck infraEnvCheck = InfraEnvCheck.ALL;
    private final Pacing pacing;
    private final ReplyAdmission admission;
    /** A host's replies reach the bus in the order they came, held or not. */
    private final ReplyOrder replyOrder = new ReplyOrder();

    AgentHttpHandlers(GatewayConfig config, AgentDirectory directory, GatewayEvents events, GatewayMetrics metrics,
                      RejectionLog rejections, Pacing pacing, ReplyAdmission admission) {
        this.pacing = pacing;
        this.admission = admission;
        this.config = config;
        this.directory = directory;
        this.events = events;
        this.metrics = metrics;
        this.rejections = rejections;
    }

    void progressCheck(ProgressCheck check) {
        this.progressCheck = check;
    }

    void infraEnvCheck(InfraEnvCheck check) {
        this.infraEnvCheck = check == null ? InfraEnvCheck.ALL : check;
    }

    /** POST .../infra-envs/{infra_env_id}/hosts → 201 host + next_step_runner_command, once the bus has the event. */
    void register(RoutingContext ctx) {
        AgentClaims claims = AgentAuth.claims(ctx);
        AgentWire.HostCreateParams params;
        try {
            params = AgentInput.hostCreateParams(AgentInput.parse(ctx.body().buffer() == null ? null : ctx.body().buffer().getBytes()));
        } catch (InvalidInput e) {
            badRequest(ctx, claims, null, e.getMessage());
            return;
        }
        AgentWire.HostCreateParams p = params;
        infraEnvCheck.exists(claims.infraEnvId()).onComplete(known -> {
            // only a definite "not there" holds the host back: with the database down the registration goes on to
            // the bus as before (the edge keeps taking agents while the database restarts)
            if (known.failed() || Boolean.TRUE.equals(known.result())) {
                register(ctx, claims, p);
            } else if (!ctx.response().ended()) {
                // not there yet: the agent-based site's service registers it after its hosts boot
                ctx.response().putHeader("Retry-After", Integer.toString(config.retryAfterSeconds()));
                HttpReplies.error(ctx, 503, "infra-env " + claims.infraEnvId() + " is not registered yet; retry");
            }
        });
    }

    private void register(RoutingContext ctx, AgentClaims claims, AgentWire.HostCreateParams params) {
        String hostId = params.hostId().toLowerCase(java.util.Locale.ROOT);
        String version = params.discoveryAgentVersion() != null ? params.discoveryAgentVersion()
                : AgentInput.agentVersion(ctx.request().getHeader(AGENT_VERSION_HEADER));
        // The mailbox exists before the registration is on the bus: the service can plan the host's first steps and
        // this gateway read them before the publish is acknowledged here. Without a mailbox they were ignored, and as
        // the first socket or poll after a registration announces nothing, the host waited for its next planned
        // refresh (~60 s) with no steps: 3 of 500 hosts in a swarm of 10 x 50.
        HostKey key = new HostKey(claims.infraEnvId(), hostId);
        boolean created = directory.registered(claims, key, version);
        // held like a step reply while the service is behind: a burst of 1,000 registrations into one cluster is ~1 s
        // of its lane, and the agent, answered later, registers no faster
        publishWhenAdmitted(ctx, () -> events.registered(claims, hostId, version), () -> {
            if (created) {
                directory.registrationFailed(key);
            }
        }, () -> HttpReplies.json(ctx, 201, registrationResponse(claims, hostId, version)));
    }

    /**
     * Publishes once the admission lets it go (held while the service is behind, as a step reply is), then answers
     * with {@code answer}. An agent gone while held is neither answered nor taken (it sends it again); a bus that
     * refused it is answered 503 + Retry-After. {@code notTaken} runs in both cases.
     */
    private void publishWhenAdmitted(RoutingContext ctx, java.util.function.Supplier<Future<Void>> publish,
                                     Runnable notTaken, Runnable answer) {
        admission.admit().onComplete(admitted -> {
            if (ctx.response().closed()) {
                notTaken.run();
                metrics.rejected(GatewayMetrics.REASON_GONE_WHILE_HELD);
                return;
            }
            publish.get().onComplete(published -> {
                if (published.failed()) {
                    notTaken.run();
                    metrics.rejected(GatewayMetrics.REASON_BUS_UNAVAILABLE);
                    HttpReplies.busUnavailable(ctx, config.retryAfterSeconds());
                    return;
                }
                answer.run();
            });
        });
    }

    /** GET .../hosts/{host_id}/instructions: pending steps at once, else held up to wait_seconds, then empty. */
    void nextSteps(RoutingContext ctx) {
        AgentClaims claims = AgentAuth.claims(ctx);
        String hostId;
        Duration hold;
        try {
            hostId = AgentInput.hostId(ctx.pathParam("host_id"));
            hold = holdTime(ctx.queryParams().get("wait_seconds"));
        } catch (InvalidInput e) {
            badRequest(ctx, claims, null, e.getMessage());
            return;
        }
        HostKey key = new HostKey(claims.infraEnvId(), hostId);
        String version = AgentInput.agentVersion(ctx.request().getHeader(AGENT_VERSION_HEADER));
        directory.httpContact(claims, key, version, AgentPresence.LONG_POLL).onComplete(contact -> {
            if (contact.failed() && contact.cause() instanceof AgentDirectory.HostUnknown unknown) {
                HttpReplies.error(ctx, 404, unknown.getMessage());
                return;
            }
            if (contact.failed()) {
                metrics.rejected(GatewayMetrics.REASON_BUS_UNAVAILABLE);
                HttpReplies.busUnavailable(ctx, config.retryAfterSeconds());
                return;
            }
            if (ctx.response().closed()) {
                return;
            }
            HeldPoll poll = new HeldPoll(ctx, contact.result());
            List<BusEvent> ready = directory.poll(contact.result(), poll, !hold.isZero());
            if (ready == null) {
                return; // answered already: the host left the directory meanwhile
            }
            if (!ready.isEmpty() || hold.isZero()) {
                poll.complete(ready);
                return;
            }
            poll.park(hold);
        });
    }

    /**
     * POST .../hosts/{host_id}/instructions → 204 once the reply is on the bus, 503 + Retry-After when not; held first
     * while the service is behind ({@link ReplyAdmission}).
     */
    void stepReply(RoutingContext ctx) {
        AgentClaims claims = AgentAuth.claims(ctx);
        String hostId;
        StepReplyReceived reply;
        try {
            hostId = AgentInput.hostId(ctx.pathParam("host_id"));
            reply = AgentInput.stepReply(AgentInput.parse(ctx.body().buffer() == null ? null : ctx.body().buffer().getBytes()));
        } catch (InvalidInput e) {
            badRequest(ctx, claims, ctx.pathParam("host_id"), e.getMessage());
            return;
        }
        HostKey key = new HostKey(claims.infraEnvId(), hostId);
        directory.mayReply(key).onComplete(allowed -> {
            if (allowed.succeeded() && !allowed.result()) {
                HttpReplies.error(ctx, 404, "host " + hostId + " not found");
                return;
            }
            replyOrder.inTurn(key, admission.admit(), () -> {
                if (ctx.response().closed()) {
                    // the agent gave up while its reply was held: never answered, so not taken either (its later
                    // replies of the same host must not be overtaken by this one)
                    metrics.rejected(GatewayMetrics.REASON_GONE_WHILE_HELD);
                    return;
                }
                publishReply(ctx, claims, hostId, key, reply);
            });
        });
    }

    private void publishReply(RoutingContext ctx, AgentClaims claims, String hostId, HostKey key, StepReplyReceived reply) {
        events.reply(claims, hostId, reply).onComplete(published -> {
            if (published.failed()) {
                metrics.rejected(GatewayMetrics.REASON_BUS_UNAVAILABLE);
                HttpReplies.busUnavailable(ctx, config.retryAfterSeconds());
                return;
            }
            metrics.replyReceived(reply.stepType());
            directory.contactIfAttached(key, AgentPresence.HTTP);
            if (!ctx.response().closed()) {
                ctx.response().setStatusCode(204).end();
            }
        });
    }

    /** PUT .../hosts/{host_id}/progress (the installer's stages) → 200 once on the bus, 503 + Retry-After when not. */
    void progress(RoutingContext ctx) {
        AgentClaims claims = AgentAuth.claims(ctx);
        String hostId;
        HostProgressReported progress;
        try {
            hostId = AgentInput.hostId(ctx.pathParam("host_id"));
            progress = AgentInput.progress(AgentInput.parse(ctx.body().buffer() == null ? null : ctx.body().buffer().getBytes()));
        } catch (InvalidInput e) {
            badRequest(ctx, claims, ctx.pathParam("host_id"), e.getMessage());
            return;
        }
        HostProgressReported report = progress;
        progressCheck.check(claims.infraEnvId(), hostId, progress.currentStage(), progress.progressInfo())
                .onComplete(checked -> {
                    if (checked.failed()) {
                        metrics.rejected(GatewayMetrics.REASON_BUS_UNAVAILABLE);
                        HttpReplies.busUnavailable(ctx, config.retryAfterSeconds());
                        return;
                    }
                    if (checked.result().isPresent()) {
                        ProgressCheck.Refusal r = checked.result().get();
                        HttpReplies.error(ctx, r.status(), r.reason());
                        return;
                    }
                    // held like a step reply while the service is behind (an install's start: 1,000 installers
                    // reporting their stages at once)
                    publishWhenAdmitted(ctx, () -> events.progress(claims, hostId, report), () -> { },
                            () -> ctx.response().setStatusCode(200).end());
                });
    }

    /** Failure handler of the agent routes: the body limit (413) and anything unexpected, in upstream's shape. */
    void failure(RoutingContext ctx) {
        int status = ctx.statusCode() > 0 ? ctx.statusCode() : 500;
        if (status == 413) {
            metrics.rejected(GatewayMetrics.REASON_TOO_LARGE);
            AgentClaims claims = AgentAuth.claims(ctx);
            String detail = "HTTP body over " + config.maxBodyBytes() + " bytes on " + ctx.request().method() + " "
                    + ctx.request().path();
            rejections.record(claims, ctx.pathParam("host_id"), GatewayMetrics.REASON_TOO_LARGE, detail);
            HttpReplies.error(ctx, 413, "request body larger than " + config.maxBodyBytes() + " bytes");
            return;
        }
        if (status >= 500) {
            org.slf4j.LoggerFactory.getLogger(AgentHttpHandlers.class)
                    .warn("agent request {} {} failed", ctx.request().method(), ctx.request().path(), ctx.failure());
        }
        HttpReplies.error(ctx, status, status >= 500 ? "internal error" : "request refused");
    }

    private void badRequest(RoutingContext ctx, AgentClaims claims, String hostId, String reason) {
        metrics.rejected(GatewayMetrics.REASON_MALFORMED);
        rejections.record(claims, hostId, GatewayMetrics.REASON_MALFORMED, reason);
        HttpReplies.error(ctx, 400, reason);
    }

    private Duration holdTime(String raw) throws InvalidInput {
        if (raw == null || raw.isBlank()) {
            return config.longPollDefault();
        }
        int seconds;
        try {
            seconds = Integer.parseInt(raw.trim());
        } catch (NumberFormatException e) {
            throw new InvalidInput("wait_seconds: must be an integer");
        }
        if (seconds < 0 || seconds > config.longPollMax().toSeconds()) {
            throw new InvalidInput("wait_seconds: must be between 0 and " + config.longPollMax().toSeconds());
        }
        return Duration.ofSeconds(seconds);
    }

    private AgentWire.HostRegistrationResponse registrationResponse(AgentClaims claims, String hostId, String version) {
        Instant now = Instant.now();
        boolean bound = claims.clusterId() != null;
        String agentVersion = config.agentImage().isEmpty() ? (version == null ? "" : version) : config.agentImage();
        String request = AgentWire.write(new AgentWire.NextStepCmdRequest(agentVersion, hostId, claims.infraEnvId()));
        return new AgentWire.HostRegistrationResponse(
                "Host", hostId,
                "/api/assisted-install/v2/infra-envs/" + claims.infraEnvId() + "/hosts/" + hostId,
                claims.infraEnvId(), claims.clusterId(),
                bound ? "discovering" : "discovering-unbound",
                "Waiting for host to send hardware details",
                "auto-assign", version, now, now, now, now,
                new AgentWire.NextStepRunnerCommand("", List.of(request), config.registrationRetrySeconds()));
    }

    /** Merges the plans kept for a host into one Steps: instructions in order (a step id once), the last plan's timing. */
    static AgentWire.Steps merge(List<BusEvent> stepsEvents, int idleNextInstructionSeconds) {
        if (stepsEvents.isEmpty()) {
            return AgentWire.Steps.empty(idleNextInstructionSeconds);
        }
        return AgentWire.Steps.of((StepsToDeliver) PlanCoalescing.coalesce(stepsEvents).payload());
    }

    /** One held GET instructions. Completed once: by steps (any thread), by its timer, or not at all if the client left. */
    private final class HeldPoll implements HostMailbox.PollWaiter {
        private final RoutingContext ctx;
        private final HostMailbox mailbox;
        private final Context context = Vertx.currentContext();
        private final AtomicBoolean done = new AtomicBoolean();
        private long timer = -1;

        HeldPoll(RoutingContext ctx, HostMailbox mailbox) {
            this.ctx = ctx;
            this.mailbox = mailbox;
        }

        void park(Duration hold) {
            timer = ctx.vertx().setTimer(hold.toMillis(), id -> {
                if (directory.cancelPoll(mailbox, this)) {
                    complete(List.of());
                }
            });
            ctx.response().closeHandler(v -> {
                if (directory.cancelPoll(mailbox, this)) {
                    done.set(true);
                    ctx.vertx().cancelTimer(timer);
                }
            });
        }

        @Override
        public void hostUnknown() {
            if (!done.compareAndSet(false, true)) {
                return;
            }
            context.runOnContext(v -> {
                if (timer >= 0) {
                    ctx.vertx().cancelTimer(timer);
                }
                HttpReplies.error(ctx, 404, "host " + mailbox.key.hostId() + " not found");
            });
        }

        @Override
        public void complete(List<BusEvent> stepsEvents) {
            if (!done.compareAndSet(false, true)) {
                return;
            }
            context.runOnContext(v -> answer(stepsEvents));
        }

        private void answer(List<BusEvent> stepsEvents) {
            if (timer >= 0) {
                ctx.vertx().cancelTimer(timer);
            }
            if (ctx.response().closed() || ctx.response().ended()) {
                directory.requeue(mailbox, stepsEvents);
                return;
            }
            AgentWire.Steps steps = pacing.paced(merge(stepsEvents, config.idleNextInstructionSeconds()));
            directory.answered(mailbox, steps.nextInstructionSeconds());
            HttpReplies.json(ctx, 200, steps).onComplete(written -> {
                if (written.failed()) {
                    directory.requeue(mailbox, stepsEvents);
                    return;
                }
                Instant now = Instant.now();
                for (BusEvent event : stepsEvents) {
                    metrics.delivered(AgentPresence.LONG_POLL, ((StepsToDeliver) event.payload()).instructions().size(),
                            Duration.between(event.occurredAt(), now));
                }
            });
        }
    }
}
