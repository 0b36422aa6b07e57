/** Event records, topic names, partition keys and Kafka plumbing; depends on nothing of ours. */
package dev.rendezvous.bus;
