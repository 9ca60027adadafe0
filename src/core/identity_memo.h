// IdentityMemo<K, V>: a value kept per shared immutable object — the object's identity is the key
// (issue 17: a session's history messages are the same objects turn after turn, so what is derived
// from one — its wire form, its request copy with a turn-context note — is derived once).
//
// An entry holds its key object (std::shared_ptr<const K>): the address cannot be taken by another
// object while the entry lives, so a hit is always for that very object. Bounded by a total cost
// (the caller's measure, e.g. bytes): beyond it, the least recently used half goes in one pass.
// Not synchronised: one per thread (thread_local) or per owner.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <utility>
#include <vector>

namespace pincer {

template <typename K, typename V>
class IdentityMemo {
 public:
  explicit IdentityMemo(std::size_t max_cost) : max_cost_(max_cost) {}

  /// The value kept for `key`, or nullptr.
  V* find(const K* key) {
    auto it = entries_.find(key);
    if (it == entries_.end()) return nullptr;
    it->second.used = ++clock_;
    return &it->second.value;
  }
  /// Keeps `value` for `key` (replacing what was kept); `cost` counts against the bound. A value
  /// costing more than a quarter of the bound is not kept. Returns the kept value or nullptr.
  V* put(std::shared_ptr<const K> key, V value, std::size_t cost) {
    if (!key || cost > max_cost_ / 4) return nullptr;
    const K* k = key.get();
    Entry& e = entries_[k];
    total_ -= e.cost;
    e = Entry{std::move(key), std::move(value), cost, ++clock_};
    total_ += cost;
    if (total_ > max_cost_) evict();
    auto it = entries_.find(k);
    return it == entries_.end() ? nullptr : &it->second.value;
  }
  std::size_t size() const { return entries_.size(); }
  std::size_t cost() const { return total_; }

 private:
  struct Entry {
    std::shared_ptr<const K> key;  // held: the address stays this object's
    V value{};
    std::size_t cost = 0;
    uint64_t used = 0;
  };
  void evict() {
    std::vector<uint64_t> uses;
    uses.reserve(entries_.size());
    for (const auto& [k, e] : entries_) uses.push_back(e.used);
    auto middle = uses.begin() + static_cast<std::ptrdiff_t>(uses.size() / 2);
    std::nth_element(uses.begin(), middle, uses.end());
    const uint64_t cut = *middle;
    for (auto it = entries_.begin(); it != entries_.end();) {
      if (it->second.used < cut) {
        total_ -= it->second.cost;
        it = entries_.erase(it);
      } else {
        ++it;
      }
    }
  }

  const std::size_t max_cost_;
  std::unordered_map<const K*, Entry> entries_;
  std::size_t total_ = 0;
  uint64_t clock_ = 0;
};

}  // namespace pincer
