// read_mapped: runs a piece of work that reads a mapped file, turning the
// SIGBUS a read raises when the file was cut short under the mapping (a dump
// rewritten in place while it loads) into a `false` return for that thread,
// instead of the death of the process and every heap it holds. A SIGBUS
// anywhere else keeps the action it had.
#pragma once

#include <csetjmp>

namespace heapleak {

// One thread's armed range; only read_mapped makes them.
struct MappedReadGuard {
  const void* begin;
  const void* end;
  sigjmp_buf resume;
  MappedReadGuard* outer;  // the guard this one nests in, on this thread

  MappedReadGuard(const void* range_begin, const void* range_end);
  ~MappedReadGuard();
  MappedReadGuard(const MappedReadGuard&) = delete;
  MappedReadGuard& operator=(const MappedReadGuard&) = delete;
};

// Calls work(); false, with work() cut short, when it read a page of
// [begin, end) that is no longer backed by the file. work() must hold
// nothing that needs destroying when cut short (it is left by siglongjmp):
// views, counters and objects owned by its caller.
template <class Work>
bool read_mapped(const void* begin, const void* end, Work&& work) {
  MappedReadGuard guard(begin, end);
  // No signal mask to restore: the handler runs with SA_NODEFER.
  if (sigsetjmp(guard.resume, 0) != 0) return false;
  work();
  return true;
}

}  // namespace heapleak
