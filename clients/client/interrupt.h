// Ctrl-C as an event: SIGINT writes a byte into a self-pipe that the RPC wait
// loop polls next to the daemon's socket, so the client can send
// $/cancelRequest and keep waiting for the reply instead of dying.
#pragma once

namespace heapleak::client {

// Installs the SIGINT handler (no SA_RESTART; idempotent).
void install_interrupt_handler();

// The pipe's read end, readable after a SIGINT; -1 before install.
int interrupt_fd();

// Drains the pipe; returns how many SIGINTs arrived since the last call.
int take_interrupts();

}  // namespace heapleak::client
