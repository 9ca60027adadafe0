// Which keys each channel's block takes (CH-3, CH-6): `channels.<id>` and its
// `accounts.<account>` blocks accept only the keys their channel reads, so a key of another
// channel (Discord's `botToken` instead of `token`, `channels.matrix.password`) is an unknown-key
// error rather than a silently ignored value. Used by config_schema_channels.cpp.
#pragma once

#include "core/config_schema.h"

namespace pincer::config::schema {

/// The `channels` section: an object with one block per channel Pincer runs (telegram, discord,
/// slack, matrix, email, irc, webhook), each built from `every_key` — the object node listing
/// every key any channel reads, with `accounts` (a map of the same object without `accounts`)
/// — keeping only that channel's keys, with `mode` narrowed to the channel's own modes and hints
/// for other channels' spellings (e.g. discord: `botToken` → `token`). A block is only present
/// when written (with_defaults never creates one). Any other channel id is an unknown key.
Node channels_by_channel(const Node& every_key);

}  // namespace pincer::config::schema
