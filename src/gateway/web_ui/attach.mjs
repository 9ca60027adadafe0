// Images in the web chat's composer (issue 17 item 4): pasted or picked with the 📎 button, shown
// as small preview chips (× removes one) and sent as chat.send attachments in OpenClaw's shape
// {type:"image", mimeType, fileName, content: <base64>}. The gateway checks type and size
// (agent/attachments.h: 5 MB each); the chip refuses only what is obviously not an image.

const MAX_BYTES = 5_000_000;

/// Wires the picker, paste and chips; `onError(text)` shows a refusal. Returns
/// {take(): attachments to send (and clears the chips), count()}.
export function createAttachments({ input, picker, button, chips, onError }) {
  let items = [];  // {type, mimeType, fileName, content, url}

  function render() {
    chips.replaceChildren();
    chips.hidden = items.length === 0;
    items.forEach((a, i) => {
      const chip = document.createElement('span');
      chip.className = 'chip';
      const img = document.createElement('img');
      img.src = a.url;
      img.alt = a.fileName;
      const remove = document.createElement('button');
      remove.type = 'button';
      remove.textContent = '×';
      remove.setAttribute('aria-label', 'Remove ' + a.fileName);
      remove.addEventListener('click', () => { items.splice(i, 1); render(); });
      chip.append(img, remove);
      chips.appendChild(chip);
    });
  }

  function add(file) {
    if (!file || !String(file.type).startsWith('image/')) return onError('Only images can be attached here.');
    if (file.size > MAX_BYTES) return onError(`${file.name || 'The image'} is larger than 5 MB.`);
    const reader = new FileReader();
    reader.onload = () => {
      const url = String(reader.result);  // data:<mime>;base64,<data>
      items.push({ type: 'image', mimeType: file.type, fileName: file.name || 'pasted-image', content: url.slice(url.indexOf(',') + 1), url });
      render();
    };
    reader.readAsDataURL(file);
  }

  button.addEventListener('click', () => picker.click());
  picker.addEventListener('change', () => {
    for (const f of picker.files) add(f);
    picker.value = '';
  });
  input.addEventListener('paste', (e) => {
    const files = [...(e.clipboardData ? e.clipboardData.files : [])].filter((f) => f.type.startsWith('image/'));
    if (files.length === 0) return;
    e.preventDefault();
    files.forEach(add);
  });

  return {
    count: () => items.length,
    take() {
      const out = items.map(({ type, mimeType, fileName, content }) => ({ type, mimeType, fileName, content }));
      const urls = items.map((a) => a.url);
      items = [];
      render();
      return { attachments: out, urls };
    },
  };
}

/// The data: URLs of a message's image blocks ({type:"image", data, mimeType}).
export function imageUrls(content) {
  if (!Array.isArray(content)) return [];
  return content.filter((b) => b && b.type === 'image' && typeof b.data === 'string' && /^image\/[a-z+.-]+$/.test(String(b.mimeType)))
    .map((b) => `data:${b.mimeType};base64,${b.data}`);
}
