// The words of a report's cards: explain's document read by the text
// renderer every other surface prints (results/text's explain_text), cut
// into the header line, one list of lines per leak row and per noise row,
// and the "... N more" lines, so the page says what `heapleak explain` says.
// Every dump string in them is already escaped (terminal_safe.h).
#pragma once

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

namespace heapleak::results {

// {head, memory: [line, ...], leaks: [[line, ...], ...], noise: [[line, ...], ...],
//  more: [line, ...], warnings: [...]}; leaks[k] is the k-th row of explain's
// `leaks`; `memory` is explain's memory block (results/text/memory_text.h).
boost::json::object report_cards(const boost::json::value& explain);

}  // namespace heapleak::results
