// The JSON-RPC / LSP error codes heapleakd answers with (PROTOCOL.md, "Errors").
// Constants only: building error objects is error.h's job, choosing a code is
// the session's or the handler's.
#pragma once

namespace heapleak::protocol {

inline constexpr int kParseError = -32700;            // the frame is not JSON
inline constexpr int kInvalidRequest = -32600;        // not a request, empty batch, after shutdown
inline constexpr int kMethodNotFound = -32601;        // unknown method
inline constexpr int kInvalidParams = -32602;         // message names the field: params.path: ...
inline constexpr int kInternalError = -32603;         // exception escaped, handler never replied
inline constexpr int kServerNotInitialized = -32002;  // request before initialize
inline constexpr int kRequestCancelled = -32800;      // $/cancelRequest honoured
inline constexpr int kDomainError = -32803;           // LSP RequestFailed: data.reason says why

}  // namespace heapleak::protocol
