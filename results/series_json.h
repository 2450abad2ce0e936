// stats' and explain's `series`: {oneSeries, findings: [{problem, first,
// second, message, fromManifest}]}, whether the dumps are one series
// (core/dump_series.h), the same for every front end.
#pragma once

#include <boost/json/object.hpp>

#include "core/series/dump_series.h"

namespace heapleak::results {

boost::json::object series_json(const SeriesCheck& series);

}  // namespace heapleak::results
