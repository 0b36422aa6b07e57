package dev.rendezvous.bus;

import dev.rendezvous.bus.ConsumerLanes.Pending;

/**
 * News about a record in flight for {@link BusConsumer}'s poll thread: its handler attempt ended ({@link Done}) or its
 * retry is due ({@link RetryDue}). Immutable: created on any thread, consumed by the poll thread only.
 */
abstract class Signal {
    final Pending pending;

    Signal(Pending pending) {
        this.pending = pending;
    }

    /** A handler attempt ended: {@code error} is null when it succeeded. */
    static final class Done extends Signal {
        final Throwable error;

        Done(Pending pending, Throwable error) {
            super(pending);
            this.error = error;
        }
    }

    /** A failed attempt's back-off is over: start the record again. */
    static final class RetryDue extends Signal {
        RetryDue(Pending pending) {
            super(pending);
        }
    }
}
