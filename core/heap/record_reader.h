// Reads one object's full record back from its dump file: the heap keeps only
// the columns its analyses need, plus where each record starts. A plain file
// costs one pread; a gzip file is inflated from the nearest access point
// saved at load time (gzip_index.h).
#pragma once

#include <optional>
#include <string>

#include "core/base/error.h"
#include "core/heap/heap.h"

namespace heapleak {

// The record's line, without its newline. Fails when the file is gone, and
// with dumpChanged when it is not the file that was loaded any more (size,
// mtime or inode differ, or the line read back is not that object's record).
Result<std::string> read_record_text(const Heap& heap, ObjectIndex i);

// Why the heap's dump file cannot be read back as the one that was loaded
// (gone or unreadable; or dumpChanged: another size, inode, mtime or ctime);
// nullopt when it can.
std::optional<Error> dump_changed(const Heap& heap);

}  // namespace heapleak
