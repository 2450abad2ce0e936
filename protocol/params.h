// Path-aware decoding of request params into plain structs. A failure throws
// ParamsError whose path grows as it unwinds (`.addresses` + `[2]`), so the
// binder answers -32602 "params.addresses[2]: expected string". Use FieldReader
// inside a struct's Boost.JSON tag_invoke(value_to_tag<T>, ...) to stay short.
#pragma once

#include <boost/json/value.hpp>
#include <boost/json/value_to.hpp>
#include <cstdint>
#include <exception>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace heapleak::protocol {

class ParamsError : public std::exception {
 public:
  explicit ParamsError(std::string problem, std::string path = {})
      : problem_(std::move(problem)), path_(std::move(path)) {}

  // Called while unwinding through a field or an array element.
  void prepend(std::string_view segment) { path_.insert(0, segment); }

  const std::string& path() const { return path_; }        // ".addresses[2]"
  const std::string& problem() const { return problem_; }  // "expected string"
  std::string message() const { return "params" + path_ + ": " + problem_; }
  const char* what() const noexcept override { return problem_.c_str(); }

 private:
  std::string problem_;
  std::string path_;
};

// Params that take nothing; any params object is accepted and ignored.
struct NoParams {};
NoParams tag_invoke(boost::json::value_to_tag<NoParams>, const boost::json::value&);

namespace detail {
template <class T>
struct IsOptional : std::false_type {};
template <class T>
struct IsOptional<std::optional<T>> : std::true_type {};
template <class T>
struct IsVector : std::false_type {};
template <class T, class A>
struct IsVector<std::vector<T, A>> : std::true_type {};

std::string read_string(const boost::json::value& value);
bool read_bool(const boost::json::value& value);
double read_double(const boost::json::value& value);
std::int64_t read_signed(const boost::json::value& value, std::int64_t min, std::int64_t max);
std::uint64_t read_unsigned(const boost::json::value& value, std::uint64_t max);
const boost::json::array& read_array(const boost::json::value& value);
}  // namespace detail

// Decodes one value; errors carry a path relative to `value`.
template <class T>
T read_value(const boost::json::value& value) {
  if constexpr (std::is_same_v<T, boost::json::value>) {
    return value;
  } else if constexpr (std::is_same_v<T, std::string>) {
    return detail::read_string(value);
  } else if constexpr (std::is_same_v<T, bool>) {
    return detail::read_bool(value);
  } else if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
    return static_cast<T>(
        detail::read_signed(value, std::numeric_limits<T>::min(), std::numeric_limits<T>::max()));
  } else if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(detail::read_unsigned(value, std::numeric_limits<T>::max()));
  } else if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(detail::read_double(value));
  } else if constexpr (detail::IsOptional<T>::value) {
    if (value.is_null()) return T{};
    return T{read_value<typename T::value_type>(value)};
  } else if constexpr (detail::IsVector<T>::value) {
    const boost::json::array& array = detail::read_array(value);
    T out;
    out.reserve(array.size());
    for (std::size_t i = 0; i < array.size(); ++i) {
      try {
        out.push_back(read_value<typename T::value_type>(array[i]));
      } catch (ParamsError& e) {
        e.prepend("[" + std::to_string(i) + "]");
        throw;
      }
    }
    return out;
  } else {
    return boost::json::value_to<T>(value);  // the struct's own tag_invoke
  }
}

// Reads named fields of one params object (null reads as an empty object, so
// absent params still say `params.heap: missing`).
class FieldReader {
 public:
  explicit FieldReader(const boost::json::value& value);  // throws "expected object"

  bool has(std::string_view name) const { return find(name) != nullptr; }

  template <class T>
  T required(std::string_view name) const {
    const boost::json::value* field = find(name);
    if (!field) throw ParamsError("missing", "." + std::string(name));
    return read_field<T>(name, *field);
  }

  // Absent or null -> nullopt.
  template <class T>
  std::optional<T> optional(std::string_view name) const {
    const boost::json::value* field = find(name);
    if (!field || field->is_null()) return std::nullopt;
    return read_field<T>(name, *field);
  }

  template <class T>
  T optional(std::string_view name, T fallback) const {
    std::optional<T> value = optional<T>(name);
    return value ? std::move(*value) : std::move(fallback);
  }

 private:
  const boost::json::value* find(std::string_view name) const;

  template <class T>
  static T read_field(std::string_view name, const boost::json::value& field) {
    try {
      return read_value<T>(field);
    } catch (ParamsError& e) {
      e.prepend("." + std::string(name));
      throw;
    }
  }

  const boost::json::object* object_ = nullptr;  // null: empty
};

}  // namespace heapleak::protocol
