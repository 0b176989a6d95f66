// Package actors is the engine: supervised actors that own target
// connections. A Conn owns one target: its process or HTTP session and the
// channel to it, the requests awaiting answers (calls and housekeeping
// alike), one server-time clock per call, the open client-input rounds, the
// notification log, the stderr ring, the evidence of what the target did
// wrong, the last listing, roots and log level. The Registry supervises the
// Conns by name.
//
// Each Conn is one goroutine that alone owns its state. Everything reaches
// it as a message: front ends send them through its mailbox (Start, Cancel,
// and every query); the channel to the target hands it Inbound batches
// (answers, notifications, the target's requests, noise, its end) on the
// channel's sink, which the actor reads beside its mailbox; timers and the
// relays of client input post back to the mailbox. No other goroutine
// registers, times or finishes a request. Slow work (spawning, the
// handshake, stopping a process, waiting for a person) runs on the
// operation's own goroutine and changes state only through messages.
//
// Two protocols are named messages:
//   - reconnect during a call: interrupt fails every call in flight with an
//     InterruptedError saying a reconnect interrupted it (and after how
//     long), retires the old life and marks the connection connecting;
//   - client-input wait: a target's question opens a round (openRound) that
//     pauses the clocks of the calls it belongs to (input.go says how a
//     question is attributed), goes to the Host on a goroutine, and comes
//     back as roundAnswered, which records the round on those calls,
//     restarts their clocks and answers the target.
//
// actors never imports a front end and never writes to stdout.
package actors
