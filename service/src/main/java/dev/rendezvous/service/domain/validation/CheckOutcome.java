package dev.rendezvous.service.domain.validation;

/** The status and message one host check produced; shared by {@link HostValidator} and its check classes. */
record CheckOutcome(ValidationStatus status, String message) {}
