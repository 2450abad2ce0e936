// The one list of JSON-RPC method names heapleakd knows. Handlers register
// under these constants; a test checks docs/protocol.md names each of them.
// Wire names are camelCase and never renamed (PROTOCOL.md, "Naming").
#pragma once

#include <array>
#include <string_view>

namespace heapleak::protocol::methods {

// Lifecycle and protocol-level messages.
inline constexpr std::string_view kInitialize = "initialize";
inline constexpr std::string_view kInitialized = "initialized";
inline constexpr std::string_view kShutdown = "shutdown";
inline constexpr std::string_view kExit = "exit";
inline constexpr std::string_view kCancelRequest = "$/cancelRequest";
inline constexpr std::string_view kProgress = "$/progress";

// Heap store.
inline constexpr std::string_view kLoadHeap = "loadHeap";
inline constexpr std::string_view kUnloadHeap = "unloadHeap";
inline constexpr std::string_view kListHeaps = "listHeaps";
inline constexpr std::string_view kStopDaemon = "stopDaemon";

// The cache of parsed heaps (images reopened instead of parsing).
inline constexpr std::string_view kCacheList = "cacheList";
inline constexpr std::string_view kCacheClear = "cacheClear";

// Queries.
inline constexpr std::string_view kStats = "stats";
inline constexpr std::string_view kRoot = "root";
inline constexpr std::string_view kPathToRoot = "pathToRoot";
inline constexpr std::string_view kObject = "object";
inline constexpr std::string_view kReferrers = "referrers";
inline constexpr std::string_view kReferences = "references";

// Later work (dominators, explanations, duplicate strings).
inline constexpr std::string_view kOwner = "owner";
inline constexpr std::string_view kExplain = "explain";
inline constexpr std::string_view kRetained = "retained";
inline constexpr std::string_view kTopRetainers = "topRetainers";
inline constexpr std::string_view kDuplicateStrings = "duplicateStrings";
inline constexpr std::string_view kDominatorTree = "dominatorTree";

// explain's rows as one self-contained HTML page (`heapleak report`).
inline constexpr std::string_view kReport = "report";

// The session answers these itself; the binder refuses them.
inline constexpr std::array kSessionOwned = {kInitialize, kInitialized,   kShutdown,
                                             kExit,       kCancelRequest, kProgress};

inline constexpr std::array kAll = {
    kInitialize, kInitialized,  kShutdown,         kExit,          kCancelRequest, kProgress,
    kLoadHeap,   kUnloadHeap,   kListHeaps,        kStopDaemon,    kStats,         kRoot,
    kPathToRoot, kObject,       kReferrers,        kReferences,    kOwner,         kExplain,
    kRetained,   kTopRetainers, kDuplicateStrings, kDominatorTree, kCacheList,     kCacheClear,
    kReport,
};

}  // namespace heapleak::protocol::methods
