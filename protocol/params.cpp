#include "protocol/params.h"

#include <cmath>

namespace heapleak::protocol {
namespace json = boost::json;

NoParams tag_invoke(json::value_to_tag<NoParams>, const json::value&) { return {}; }

namespace detail {

std::string read_string(const json::value& value) {
  if (!value.is_string()) throw ParamsError("expected string");
  return std::string(value.get_string());
}

bool read_bool(const json::value& value) {
  if (!value.is_bool()) throw ParamsError("expected boolean");
  return value.get_bool();
}

double read_double(const json::value& value) {
  if (!value.is_number()) throw ParamsError("expected number");
  return value.to_number<double>();
}

namespace {
// An integral double (3.0) is an integer; 3.5 is not.
bool integral_double(const json::value& value) {
  if (!value.is_double()) return false;
  const double d = value.get_double();
  return std::isfinite(d) && std::trunc(d) == d;
}
}  // namespace

std::int64_t read_signed(const json::value& value, std::int64_t min, std::int64_t max) {
  std::int64_t n = 0;
  if (value.is_int64()) {
    n = value.get_int64();
  } else if (value.is_uint64()) {
    throw ParamsError("out of range");  // only values above int64 max are stored as uint64
  } else if (integral_double(value)) {
    const double d = value.get_double();
    if (d < -9.2e18 || d > 9.2e18) throw ParamsError("out of range");
    n = static_cast<std::int64_t>(d);
  } else {
    throw ParamsError("expected integer");
  }
  if (n < min || n > max) throw ParamsError("out of range");
  return n;
}

std::uint64_t read_unsigned(const json::value& value, std::uint64_t max) {
  std::uint64_t n = 0;
  if (value.is_uint64()) {
    n = value.get_uint64();
  } else if (value.is_int64()) {
    if (value.get_int64() < 0) throw ParamsError("expected non-negative integer");
    n = static_cast<std::uint64_t>(value.get_int64());
  } else if (integral_double(value)) {
    const double d = value.get_double();
    if (d < 0) throw ParamsError("expected non-negative integer");
    if (d > 1.8e19) throw ParamsError("out of range");
    n = static_cast<std::uint64_t>(d);
  } else {
    throw ParamsError("expected integer");
  }
  if (n > max) throw ParamsError("out of range");
  return n;
}

const json::array& read_array(const json::value& value) {
  if (!value.is_array()) throw ParamsError("expected array");
  return value.get_array();
}

}  // namespace detail

FieldReader::FieldReader(const json::value& value) {
  if (value.is_null()) return;
  object_ = value.if_object();
  if (!object_) throw ParamsError("expected object");
}

const json::value* FieldReader::find(std::string_view name) const {
  return object_ ? object_->if_contains(name) : nullptr;
}

}  // namespace heapleak::protocol
