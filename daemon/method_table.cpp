#include "daemon/method_table.h"

namespace heapleak::daemon {

void register_all_methods(protocol::Binder& binder, DaemonContext& ctx) {
  MethodTable table(binder, ctx);
  register_heap_methods(table);
  register_analysis_methods(table);
  register_browse_methods(table);
  register_ownership_methods(table);
  register_report_methods(table);
}

}  // namespace heapleak::daemon
