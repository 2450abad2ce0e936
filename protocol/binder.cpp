#include "protocol/binder.h"

#include "protocol/method_names.h"

namespace heapleak::protocol {

void Binder::check_name(std::string_view method, bool taken) {
  // The session owns the lifecycle; registering these is a programming error.
  for (std::string_view reserved : methods::kSessionOwned) {
    if (method == reserved) {
      throw std::logic_error("method " + std::string(method) + " belongs to the session");
    }
  }
  if (taken) throw std::logic_error("method " + std::string(method) + " registered twice");
}

void Binder::add_raw(std::string_view method, RequestHandler handler) {
  check_name(method, requests_.find(method) != requests_.end());
  requests_.emplace(std::string(method), std::move(handler));
}

void Binder::add_raw_notification(std::string_view method, NotificationHandler handler) {
  check_name(method, notifications_.find(method) != notifications_.end());
  notifications_.emplace(std::string(method), std::move(handler));
}

const Binder::RequestHandler* Binder::find_request(std::string_view method) const {
  auto it = requests_.find(method);
  return it == requests_.end() ? nullptr : &it->second;
}

const Binder::NotificationHandler* Binder::find_notification(std::string_view method) const {
  auto it = notifications_.find(method);
  return it == notifications_.end() ? nullptr : &it->second;
}

std::vector<std::string> Binder::request_methods() const {
  std::vector<std::string> names;
  for (const auto& [name, handler] : requests_) names.push_back(name);
  return names;
}

}  // namespace heapleak::protocol
