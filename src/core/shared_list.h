// SharedList<T>: a list of immutable, shared values that reads like a std::vector<T> (issue 17).
// Copying the list copies pointers, not values: a session's history goes from the context engine
// to a model request every turn, and copying each message (its strings, content blocks, tool
// arguments) was a large part of a turn's cost. A value is never changed in place: `mutate`
// gives a private copy for one position, leaving other holders of the value untouched.
// Not synchronised: one thread at a time per list (the values themselves may be shared freely).
#pragma once

#include <compare>
#include <cstddef>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <utility>
#include <vector>

namespace pincer {

template <typename T>
class SharedList {
 public:
  using Ptr = std::shared_ptr<const T>;
  using value_type = T;
  using size_type = std::size_t;

  /// Random access over the values (a `const T&` per position).
  class const_iterator {
   public:
    using iterator_category = std::random_access_iterator_tag;
    using value_type = T;
    using difference_type = std::ptrdiff_t;
    using pointer = const T*;
    using reference = const T&;

    const_iterator() = default;
    explicit const_iterator(typename std::vector<Ptr>::const_iterator it) : it_(it) {}
    reference operator*() const { return **it_; }
    pointer operator->() const { return it_->get(); }
    reference operator[](difference_type n) const { return *it_[n]; }
    /// The shared value at this position.
    const Ptr& shared() const { return *it_; }
    const_iterator& operator++() { ++it_; return *this; }
    const_iterator operator++(int) { auto was = *this; ++it_; return was; }
    const_iterator& operator--() { --it_; return *this; }
    const_iterator operator--(int) { auto was = *this; --it_; return was; }
    const_iterator& operator+=(difference_type n) { it_ += n; return *this; }
    const_iterator& operator-=(difference_type n) { it_ -= n; return *this; }
    friend const_iterator operator+(const_iterator a, difference_type n) { return a += n; }
    friend const_iterator operator+(difference_type n, const_iterator a) { return a += n; }
    friend const_iterator operator-(const_iterator a, difference_type n) { return a -= n; }
    friend difference_type operator-(const const_iterator& a, const const_iterator& b) { return a.it_ - b.it_; }
    friend bool operator==(const const_iterator& a, const const_iterator& b) { return a.it_ == b.it_; }
    friend auto operator<=>(const const_iterator& a, const const_iterator& b) { return a.it_ <=> b.it_; }

   private:
    typename std::vector<Ptr>::const_iterator it_{};
  };
  using iterator = const_iterator;
  using const_reverse_iterator = std::reverse_iterator<const_iterator>;
  using reverse_iterator = const_reverse_iterator;

  SharedList() = default;
  SharedList(std::initializer_list<T> values) {
    items_.reserve(values.size());
    for (const T& v : values) push_back(v);
  }
  /// Takes the values over (each moved into its own shared slot).
  SharedList(std::vector<T> values) {  // NOLINT(google-explicit-constructor): reads as a vector
    items_.reserve(values.size());
    for (T& v : values) push_back(std::move(v));
  }

  size_type size() const { return items_.size(); }
  bool empty() const { return items_.empty(); }
  const_iterator begin() const { return const_iterator(items_.begin()); }
  const_iterator end() const { return const_iterator(items_.end()); }
  const_reverse_iterator rbegin() const { return const_reverse_iterator(end()); }
  const_reverse_iterator rend() const { return const_reverse_iterator(begin()); }
  const T& operator[](size_type i) const { return *items_[i]; }
  const T& front() const { return *items_.front(); }
  const T& back() const { return *items_.back(); }
  /// The shared value at `i` (to keep or to hand on without a copy).
  const Ptr& shared(size_type i) const { return items_[i]; }

  void push_back(T value) { items_.push_back(std::make_shared<const T>(std::move(value))); }
  /// Adds a value held elsewhere too (not copied). Precondition: not null.
  void push_back(Ptr value) { items_.push_back(std::move(value)); }
  template <typename... Args>
  const T& emplace_back(Args&&... args) {
    items_.push_back(std::make_shared<const T>(std::forward<Args>(args)...));
    return *items_.back();
  }
  /// Puts `value` at `i` instead of what was there (other holders keep the old value).
  void replace(size_type i, Ptr value) { items_[i] = std::move(value); }
  /// A private copy of the value at `i`, put in its place, to change: other holders of the old
  /// value do not see the change. Costs a copy of that one value.
  T& mutate(size_type i) {
    auto own = std::make_shared<T>(*items_[i]);
    T& ref = *own;
    items_[i] = std::move(own);
    return ref;
  }
  void reserve(size_type n) { items_.reserve(n); }
  void clear() { items_.clear(); }
  void pop_back() { items_.pop_back(); }
  /// Shrinks to `n`, or grows with default values.
  void resize(size_type n) {
    if (n <= items_.size()) {
      items_.resize(n);
      return;
    }
    while (items_.size() < n) items_.push_back(std::make_shared<const T>());
  }

 private:
  std::vector<Ptr> items_;
};

}  // namespace pincer
