// The C ABI's handles and error reporting: every object is a Handle; a
// function body runs inside guarded(), which turns any exception into -1 (or
// NULL) plus the calling thread's k100m_last_error().
#pragma once

#include <memory>
#include <string>
#include <type_traits>

#include "engine_device.h"
#include "k100/base/error.h"
#include "k100/model/k100_model.h"
#include "k100/model/workspace.h"

struct k100m_handle {
  virtual ~k100m_handle() = default;
};

namespace k100::model::c_api {

void set_error(const std::string& s);

template <class T>
struct Owned : k100m_handle {
  std::unique_ptr<T> obj;
  explicit Owned(std::unique_ptr<T> o) : obj(std::move(o)) {}
};

// The object behind a handle, or a k100::Error naming what was expected.
template <class T>
T& get(k100m_handle* h, const char* what) {
  if (!h) throw Error(std::string(what) + ": null handle");
  if (auto* o = dynamic_cast<Owned<T>*>(h)) return *o->obj;
  throw Error(std::string(what) + ": the handle is not of the expected kind");
}
// A base-class view (e.g. any linear layer as Linear).
template <class Base, class... Kinds>
Base* as_base(k100m_handle* h) {
  Base* out = nullptr;
  ((out = out ? out : (dynamic_cast<Owned<Kinds>*>(h) ? static_cast<Base*>(dynamic_cast<Owned<Kinds>*>(h)->obj.get()) : nullptr)), ...);
  return out;
}

inline Workspace* workspace_of(k100m_handle* ws) { return ws ? &get<Workspace>(ws, "workspace") : nullptr; }
inline std::string tag_or(const char* tag, const char* fallback) { return tag && *tag ? tag : fallback; }

template <class T>
k100m_handle* wrap(std::unique_ptr<T> o) {
  return new Owned<T>(std::move(o));
}

template <class F>
int guarded(const char* fn, F&& f) {
  try {
    f();
    return 0;
  } catch (const std::exception& e) {
    set_error(std::string(fn) + ": " + e.what());
  } catch (...) {
    set_error(std::string(fn) + ": unknown error");
  }
  return -1;
}

template <class F>
k100m_handle* guarded_new(const char* fn, F&& f) {
  k100m_handle* out = nullptr;
  guarded(fn, [&] { out = f(); });
  return out;
}

inline bool out_ok(const void* p) { return p != nullptr; }

}  // namespace k100::model::c_api
