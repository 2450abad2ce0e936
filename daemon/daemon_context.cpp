#include "daemon/daemon_context.h"

#include <utility>

namespace heapleak::daemon {

void write_image_later(DaemonContext& ctx, PendingImage image) {
  ctx.images->add(std::move(image), [logger = ctx.logger](const std::string& warning) {
    if (logger) logger->error(warning);
  });
}

}  // namespace heapleak::daemon
