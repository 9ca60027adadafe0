// Application commands and interactions for the Discord emulator (API v10,
// https://discord.com/developers/docs/interactions): GET/PUT /applications/{id}/commands (the
// bulk overwrite; what was registered is kept and returned, so discord.js's REST sees it),
// GET /applications/@me, INTERACTION_CREATE injected by a test (a person running a slash command), and the answers a bot
// gives: POST /interactions/{id}/{token}/callback (type 4 message, 5 deferred; a second answer is
// refused with 40060 as Discord does), PATCH/DELETE /webhooks/{app}/{token}/messages/@original|{id}
// and follow-ups POST /webhooks/{app}/{token}, with files as multipart/form-data as Discord takes them. Response messages are real messages of the channel
// (MESSAGE_CREATE / MESSAGE_UPDATE), ephemeral ones (flags 64) dispatched only to the person who ran
// the command. An application's id is its bot user's id (the emulator's READY says so).
//
//   enableInteractions(emu); const i = emu.runCommand(alice, channel, 'status', [{name: 'x', value: 'y'}]);
//   emu.interactionCalls  // every callback / webhook request: {method, path, body, status, at, interaction (id)}
//   emu.registeredCommands.get(bot.id), emu.commandPuts  // the registration
const EPHEMERAL = 64;
const LOADING = 128;

export function enableInteractions(emu) {
  emu.registeredCommands = new Map();  // application id -> [command objects with ids]
  emu.commandPuts = [];                // bodies of the bulk overwrites, in order
  emu.interactions = new Map();        // token -> {id, appId, user, channelId, acked, ephemeral, originalId}
  emu.interactionCalls = [];

  const visibleTo = (interaction) => (viewer) => !interaction.ephemeral || viewer.user.id === interaction.user.id;
  const dispatchMessage = (interaction, t, msg) => {
    const channel = emu.channels.get(msg.channel_id);
    const may = visibleTo(interaction);
    for (const s of emu.sessions.values()) {
      if (!s.ready || !emu.canSee(s.user, channel) || !may(s)) continue;
      emu.dispatch(s, t, { ...msg, guild_id: channel.guild_id });
    }
  };
  const newMessage = (interaction, content, flags, attachments = []) => {
    const bot = emu.users.get(interaction.appId);
    const msg = { id: emu.snowflake(), channel_id: interaction.channelId, author: emu.publicUser(bot), content: String(content ?? ''),
      timestamp: new Date().toISOString(), edited_timestamp: null, tts: false, mention_everyone: false, mentions: [], mention_roles: [],
      attachments, embeds: [], pinned: false, type: 20, flags, components: [], application_id: interaction.appId, webhook_id: interaction.appId,
      interaction_metadata: { id: interaction.id, type: 2, user: emu.publicUser(interaction.user), authorizing_integration_owners: {} } };
    emu.messages.set(msg.id, msg);
    dispatchMessage(interaction, 'MESSAGE_CREATE', msg);
    return msg;
  };
  const editMessage = (interaction, msg, content, attachments = null) => {
    msg.content = String(content ?? '');
    if (attachments) msg.attachments = attachments;
    msg.flags &= ~LOADING;
    msg.edited_timestamp = new Date().toISOString();
    msg.edits = (msg.edits || 0) + 1;
    dispatchMessage(interaction, 'MESSAGE_UPDATE', msg);
    return msg;
  };

  /// `user` runs /`name` in `channel` (options: [{name, value}] of string options): the bot's
  /// sessions get INTERACTION_CREATE. Returns the interaction ({id, token, …}).
  emu.runCommand = (user, channel, name, options = [], { bot } = {}) => {
    const app = bot || [...emu.users.values()].find((u) => u.bot && emu.canSee(u, channel));
    const interaction = { id: emu.snowflake(), token: `aW50ZXJhY3Rpb24.${emu.snowflake()}.emu-token`, appId: app.id, user, channelId: channel.id,
      acked: false, ephemeral: false, originalId: null };
    emu.interactions.set(interaction.token, interaction);
    const command = (emu.registeredCommands.get(app.id) || []).find((c) => c.name === name);
    const d = { id: interaction.id, application_id: app.id, type: 2, token: interaction.token, version: 1,
      data: { id: command ? command.id : emu.snowflake(), name, type: 1, options: options.map((o) => ({ name: o.name, type: 3, value: o.value })) },
      channel_id: channel.id, channel: { id: channel.id, type: channel.type }, app_permissions: '1071698660929', locale: 'en-US',
      entitlements: [], authorizing_integration_owners: { 0: channel.guild_id || '0' }, context: channel.guild_id ? 0 : 1 };
    if (channel.guild_id) {
      const guild = emu.guilds.get(channel.guild_id);
      d.guild_id = guild.id;
      d.member = emu.member(guild, user);
    } else {
      d.user = emu.publicUser(user);
    }
    for (const s of emu.sessions.values()) if (s.ready && s.user.id === app.id) emu.dispatch(s, 'INTERACTION_CREATE', d);
    return interaction;
  };

  emu.routes.push((req, p, body, user, { ok, reply, res, rl, record }) => {
    let x;
    const noContent = () => { record.status = 204; res.writeHead(204, rl); res.end(); return true; };
    if (p === '/applications/@me' && req.method === 'GET') {
      if (!user.bot) return reply(401, { message: '401: Unauthorized', code: 0 }), true;
      return ok({ id: user.id, name: user.username, description: '', bot_public: true, bot_require_code_grant: false, flags: 0,
        bot: emu.publicUser(user), verify_key: '0'.repeat(64), team: null }), true;
    }
    if ((x = /^\/applications\/(\d+)\/commands$/.exec(p))) {
      if (req.method === 'GET') return ok(emu.registeredCommands.get(x[1]) || []), true;
      if (req.method === 'PUT') {
        if (user.id !== x[1]) return reply(403, { message: 'Missing Access', code: 50001 }), true;
        if (!Array.isArray(body)) return reply(400, { message: 'Invalid Form Body', code: 50035 }), true;
        emu.commandPuts.push(body);
        const list = body.map((c) => ({ id: emu.snowflake(), application_id: x[1], version: emu.snowflake(), default_member_permissions: null,
          type: 1, nsfw: false, integration_types: [0], contexts: null, options: [], ...c }));
        emu.registeredCommands.set(x[1], list);
        return ok(list), true;
      }
    }
    const callAt = (interaction) => emu.interactionCalls.push(Object.assign(record, { interaction: interaction?.id }));  // status set by the answer
    if ((x = /^\/interactions\/(\d+)\/([^/]+)\/callback$/.exec(p)) && req.method === 'POST') {
      const interaction = emu.interactions.get(x[2]);
      callAt(interaction);
      if (!interaction || interaction.id !== x[1]) return reply(404, { message: 'Unknown interaction', code: 10062 }), true;
      if (interaction.acked) return reply(400, { message: 'Interaction has already been acknowledged.', code: 40060 }), true;
      const type = Number(body?.type);
      if (type !== 4 && type !== 5) return reply(400, { message: 'Invalid Form Body', code: 50035 }), true;
      interaction.acked = true;
      interaction.ephemeral = ((body?.data?.flags ?? 0) & EPHEMERAL) !== 0;
      const msg = newMessage(interaction, type === 4 ? body?.data?.content : '', (interaction.ephemeral ? EPHEMERAL : 0) | (type === 5 ? LOADING : 0));
      interaction.originalId = msg.id;
      return noContent();
    }
    if ((x = /^\/webhooks\/(\d+)\/([^/]+)(\/messages\/(@original|\d+))?$/.exec(p))) {
      const interaction = emu.interactions.get(x[2]);
      callAt(interaction);
      if (!interaction || interaction.appId !== x[1]) return reply(404, { message: 'Unknown Webhook', code: 10015 }), true;
      if (!interaction.acked) return reply(404, { message: 'Unknown Message', code: 10008 }), true;
      const content = String(body?.content ?? '');
      if (content.length > 2000) return reply(400, { message: 'Invalid Form Body', code: 50035 }), true;
      // Files (multipart files[n], as for channel messages): kept on the CDN, in emu.uploads with the interaction's id.
      const files = Array.isArray(body?.files) ? body.files : [];
      const stored = () => files.map((f) => {
        emu.uploads.push({ channelId: interaction.channelId, interaction: interaction.id, filename: f.filename, contentType: f.contentType, bytes: f.bytes });
        return emu.addAttachment(f.bytes, f.filename, f.contentType ?? 'application/octet-stream');
      });
      if (!x[3]) {
        if (req.method !== 'POST') return false;
        if (!content && files.length === 0) return reply(400, { message: 'Cannot send an empty message', code: 50006 }), true;
        const ephemeral = ((body?.flags ?? 0) & EPHEMERAL) !== 0;
        return ok(newMessage({ ...interaction, ephemeral }, content, ephemeral ? EPHEMERAL : 0, stored())), true;
      }
      const id = x[4] === '@original' ? interaction.originalId : x[4];
      const msg = emu.messages.get(id);
      if (!msg || msg.interaction_metadata?.id !== interaction.id) return reply(404, { message: 'Unknown Message', code: 10008 }), true;
      const shown = { ...interaction, ephemeral: (msg.flags & EPHEMERAL) !== 0 };
      if (req.method === 'PATCH') return ok(editMessage(shown, msg, content, files.length > 0 ? stored() : null)), true;
      if (req.method === 'DELETE') {
        emu.messages.delete(id);
        dispatchMessage(shown, 'MESSAGE_DELETE', { id, channel_id: msg.channel_id });
        return noContent();
      }
    }
    return false;
  });
  return emu;
}
