#include "protocol/message.h"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <cmath>

namespace heapleak::protocol {
namespace json = boost::json;

namespace {

InvalidMessage invalid(json::value id, std::string message) {
  return InvalidMessage{std::move(id), RpcError{kInvalidRequest, std::move(message), std::nullopt}};
}

bool valid_id(const json::value& id) {
  // A non-finite number (1e999) would be echoed as `Infinity`, which is not JSON.
  return id.is_int64() || id.is_uint64() || (id.is_double() && std::isfinite(id.get_double())) ||
         id.is_string() || id.is_null();
}

}  // namespace

Message parse_message(const json::value& value) {
  const json::object* object = value.if_object();
  if (!object) return invalid(nullptr, "a message must be a JSON object");

  json::value id = nullptr;
  const json::value* raw_id = object->if_contains("id");
  if (raw_id) {
    if (!valid_id(*raw_id)) return invalid(nullptr, "id must be a number, a string or null");
    id = *raw_id;
  }
  const json::value* version = object->if_contains("jsonrpc");
  if (!version || !version->is_string() || version->get_string() != "2.0") {
    return invalid(id, "jsonrpc must be \"2.0\"");
  }

  if (const json::value* method = object->if_contains("method")) {
    if (!method->is_string()) return invalid(id, "method must be a string");
    json::value params = nullptr;
    if (const json::value* raw = object->if_contains("params")) {
      // null is accepted as "absent": some LSP clients send it for no-param calls.
      if (!raw->is_object() && !raw->is_array() && !raw->is_null()) {
        return invalid(id, "params must be an object or an array");
      }
      params = *raw;
    }
    std::string name(method->get_string());
    if (!raw_id) return Notification{std::move(name), std::move(params)};
    return Request{std::move(id), std::move(name), std::move(params)};
  }

  const json::value* result = object->if_contains("result");
  const json::value* error = object->if_contains("error");
  if (raw_id && (result != nullptr) != (error != nullptr)) {
    Response response{std::move(id), result ? *result : json::value(nullptr), std::nullopt};
    if (error) {
      const json::object* e = error->if_object();
      if (!e) return invalid(nullptr, "error must be an object");
      RpcError rpc_error;
      if (const json::value* code = e->if_contains("code"); code && code->is_int64()) {
        rpc_error.code = static_cast<int>(code->get_int64());
      }
      if (const json::value* text = e->if_contains("message"); text && text->is_string()) {
        rpc_error.message = std::string(text->get_string());
      }
      if (const json::value* data = e->if_contains("data")) rpc_error.data = *data;
      response.error = std::move(rpc_error);
    }
    return response;
  }
  return invalid(id, "not a request, notification or response (no method)");
}

ParsedPayload parse_payload(std::string_view payload) {
  json::parse_options options;
  options.max_depth = 64;  // deep nesting is refused as a parse error, never a stack overflow
  boost::system::error_code ec;
  json::value value = json::parse(payload, ec, json::storage_ptr(), options);
  ParsedPayload parsed;
  if (ec) {
    parsed.messages.push_back(InvalidMessage{
        nullptr, RpcError{kParseError, "parse error: " + ec.message(), std::nullopt}});
    return parsed;
  }
  if (const json::array* batch = value.if_array()) {
    if (batch->empty()) {
      parsed.messages.push_back(invalid(nullptr, "empty batch"));
      return parsed;
    }
    parsed.batch = true;
    parsed.messages.reserve(batch->size());
    for (const json::value& entry : *batch) parsed.messages.push_back(parse_message(entry));
    return parsed;
  }
  parsed.messages.push_back(parse_message(value));
  return parsed;
}

json::object make_result(const json::value& id, json::value result) {
  json::object object;
  object["jsonrpc"] = "2.0";
  object["id"] = id;
  object["result"] = std::move(result);
  return object;
}

json::object make_error(const json::value& id, const RpcError& error) {
  json::object object;
  object["jsonrpc"] = "2.0";
  object["id"] = id;
  object["error"] = to_json(error);
  return object;
}

json::object make_notification(std::string_view method, json::value params) {
  json::object object;
  object["jsonrpc"] = "2.0";
  object["method"] = method;
  if (!params.is_null()) object["params"] = std::move(params);
  return object;
}

std::string describe_id(const json::value& id) { return json::serialize(id); }

}  // namespace heapleak::protocol
