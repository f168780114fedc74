// Package reactor is the session manager. Its decisions — gates, delivery,
// join promotion, unfulfillable detection, kill selection, payload flow and
// lease release — are pure functions of state and event in this package (no
// IO, no clock, no randomness: time and ids are inputs), tested over every
// event order that matters. The Redis store (joinstore) and the executors
// only wire them.
package reactor
