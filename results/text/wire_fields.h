// Reading a wire result defensively (a field absent or of another type reads
// as empty or 0) and saying it for people: counts "1,234", sizes by
// human_bytes, dump strings through shown(). What every renderer and
// heapleak-client read results with.
#pragma once

#include <boost/json/array.hpp>
#include <boost/json/value.hpp>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace heapleak::text {

const boost::json::value* member(const boost::json::value& object, std::string_view key);
// The string as it came ("" when absent): for ids and parameters, not screens.
std::string raw(const boost::json::value& object, std::string_view key);
// The string escaped for a screen (terminal_safe.h).
std::string field(const boost::json::value& object, std::string_view key);
std::uint64_t num(const boost::json::value& object, std::string_view key);
bool flag(const boost::json::value& object, std::string_view key);
// The array at `key`, or an empty one.
const boost::json::array& list(const boost::json::value& object, std::string_view key);

std::string count_of(const boost::json::value& object, std::string_view key);  // "1,234"
std::string bytes_of(const boost::json::value& object, std::string_view key);  // "1.2 MiB"
// "1 object", "2,700 objects".
std::string counted(std::uint64_t n, std::string_view one, std::string_view many);
// "app.rb:12" from an object brief's file and line, or "".
std::string location(const boost::json::value& brief);
// An object brief in a line: "0x7f.. User (app/user.rb:3)"; the Ruby name,
// else the class, else the dump type.
std::string describe(const boost::json::value& brief);
// A group key (core/object_key.h) in Ruby's words, the one vocabulary of
// every surface: a class or module object by its name (CLASS:Leaky -> Leaky),
// a built-in type by the class all its objects are (HASH -> Hash, FILE -> IO,
// BIGNUM -> Integer); keys with no Ruby class (DATA:x, IMEMO:x, ICLASS) and
// any other key (a class name, file:line, generation N) as they are.
std::string ruby_key(std::string_view key);
// A heap of a result for a header: the file when the result names it
// (`files.<role>` of stats and explain, `<role>File`), else the id or name
// at `role` ("target", "heap").
std::string heap_label(const boost::json::value& result, std::string_view role);
// `text` cut to `columns` code points, "..." at the end when cut (never
// inside a UTF-8 sequence).
std::string cut(const std::string& text, std::size_t columns);
// The strings of an array, escaped: each, or joined.
std::vector<std::string> strings_of(const boost::json::value& object, std::string_view key);
std::string joined(const boost::json::value& object, std::string_view key,
                   std::string_view separator);

}  // namespace heapleak::text
