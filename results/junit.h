// `heapleak check --format junit`: the verdict as JUnit XML for test
// dashboards. One testsuite; one testcase per leak row (failing when the row
// fails the gate), one skipped testcase per noise row, and one "within
// budget" testcase carrying the verdict. Every text is XML-escaped.
#pragma once

#include <string>

#include "core/diagnosis/leak_row.h"
#include "results/leak_gate.h"

namespace heapleak::results {

std::string junit_xml(const LeakClusters& clusters, const GateVerdict& verdict);

// Escapes & < > " ' and drops the characters XML 1.0 forbids (control
// characters other than tab, newline and carriage return).
std::string xml_escape(const std::string& text);

}  // namespace heapleak::results
