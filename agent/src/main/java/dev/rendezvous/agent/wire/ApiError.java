package dev.rendezvous.agent.wire;

/** Upstream error body {@code {"code","href","id","kind","reason"}}; only the reason is used. */
public record ApiError(String code, String href, Integer id, String kind, String reason) {}
