// Package supervise is run-mcp's supervisor: on Linux, one small process per
// wire.Spawner (so one per run-mcp engine, whatever its number of
// connections) that starts every target and sees to it that nothing a
// target starts outlives it or run-mcp.
//
// The supervisor is the run-mcp binary itself, run as `run-mcp
// -test.run=^$ __run-mcp-supervise` (Command). It is entered through main,
// never an init function: cmd/run-mcp's main, and the TestMain of every test
// binary that starts targets, call Main first thing when Invoked says so.
// (Guard, the -test.run flag, makes a test binary that forgot run no test
// instead of its whole suite.)
//
// It talks to run-mcp over one SOCK_SEQPACKET socket (ConnFD): run-mcp asks
// it to start a target (path, argv, environment, directory, and the three
// stdio fds as SCM_RIGHTS), to SIGTERM a target's process group, to kill
// everything of a target, and to release it; it answers every request
// (started or failed, and an acknowledgement), and reports per target its
// exit and, when nothing of it is left running, that it is empty. When
// run-mcp is gone in any way (end of file on the socket, which the kernel
// closes however run-mcp ends), it kills every process below it and exits.
// A one-shot command's target is started before anything else: run-mcp
// sends its start before the supervisor runs, and the supervisor takes
// over its signals only once that start is carried out. It forks every
// target from its main goroutine, locked to its thread for the process's
// life: Linux sends a target's parent-death signal when the forking thread
// exits (Go issue 27505).
//
// The supervisor is a child subreaper, so every orphan below it reparents
// to it; attributing each to its target is most of its work (reap_linux.go).
// Every target runs in a process group of its own, without a controlling
// terminal (the supervisor gave its own up), and every one but a target
// started while no other runs goes through the exec trampoline (`run-mcp
// -test.run=^$ __run-mcp-exec PATH ARGV...`), which makes itself a child
// subreaper and becomes the target by execve: while the target lives, its
// orphans stay below it. What reaches the supervisor is then what a target
// left behind when it exited (its remnants, which may still serve its
// pipes: a launcher's server), or, from a target started alone and from
// remnants, orphans whose parent died. Each is attributed by its process
// group (a target's or a remnant's) or a remnant's session, else by the
// target's stdio pipes it holds, else to the records that lost a child at
// that moment or are being killed, else to those whose orphans can arrive
// unannounced. An orphan that bears no mark while several targets ended at
// once belongs to all of them and dies with the first to be killed.
//
// It never writes to run-mcp's stdout, and to its stderr only the one line
// saying it stops every server because run-mcp sent it garbage.
package supervise
