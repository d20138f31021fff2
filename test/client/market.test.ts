/**
 * The client's tests against the real app on the devnet with real keys, in one process so that
 * one record of the routes they reach (harness.ts) is complete when the coverage check, registered
 * last, runs. Each case file opens its own market in its describe; node:test runs them in this
 * order, one after the other.
 */
import './core.cases.js';
import './flows-listing.cases.js';
import './flows-offers.cases.js';
import './flows-policy.cases.js';
import './push.cases.js';
import './coverage.cases.js';
