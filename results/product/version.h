// The version every binary reports (heapleak, heapleak-client, heapleakd:
// --version, the daemon's serverInfo, the client's clientInfo, SARIF's
// driver), from one place so they cannot disagree.
#pragma once

namespace heapleak {

inline constexpr const char* kVersion = "0.1.0";

}  // namespace heapleak
