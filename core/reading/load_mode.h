// How much of a dump a load keeps, named once for the loader, the parser and
// the builder. The leak diff needs only the identity columns of the baseline
// and later dumps (A and C), so those load in identity-only mode at about
// half the memory; queries on references need a full load.
#pragma once

namespace heapleak {

enum class LoadMode {
  kFull,          // every column, references both ways, record offsets, methods
  kIdentityOnly,  // identity columns only: each object keeps its first reference, no edges
};

}  // namespace heapleak
