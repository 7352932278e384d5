// The branding page (src/modules/dashboard/branding.ts): the chosen logo file is checked here for a quick
// answer (size, and the type by its first bytes), then put base64-encoded into the form's `logo` field,
// which posts as an ordinary urlencoded form. The server checks everything again.
(function () {
  'use strict';
  var form = document.getElementById('branding-form');
  var file = document.getElementById('logo-file');
  var data = document.getElementById('logo-data');
  var error = document.getElementById('logo-error');
  var save = document.getElementById('save-branding');
  if (!form || !file || !data || !error || !save) return;
  var max = Number(form.getAttribute('data-logo-max'));

  function problem(text) {
    data.value = '';
    error.textContent = text;
    error.hidden = !text;
    if (text) file.setAttribute('aria-invalid', 'true');
    else file.removeAttribute('aria-invalid');
  }

  function kind(bytes) {
    function starts(signature, at) {
      for (var i = 0; i < signature.length; i++) if (bytes[(at || 0) + i] !== signature[i]) return false;
      return true;
    }
    if (starts([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image';
    if (starts([0xff, 0xd8, 0xff])) return 'image';
    if (starts([0x52, 0x49, 0x46, 0x46]) && starts([0x57, 0x45, 0x42, 0x50], 8)) return 'image';
    var head = String.fromCharCode
      .apply(null, Array.prototype.slice.call(bytes, 0, 256))
      .replace(/^\uFEFF|^\xEF\xBB\xBF/, '')
      .trim()
      .toLowerCase();
    if (/^(<\?xml|<svg|<!doctype svg)/.test(head) || (/^<!--/.test(head) && head.indexOf('<svg') >= 0))
      return 'svg';
    return 'other';
  }

  function base64(bytes) {
    var binary = '';
    for (var i = 0; i < bytes.length; i += 0x8000) {
      binary += String.fromCharCode.apply(null, Array.prototype.slice.call(bytes, i, i + 0x8000));
    }
    return window.btoa(binary);
  }

  file.addEventListener('change', function () {
    problem('');
    var chosen = file.files && file.files[0];
    if (!chosen) return;
    if (chosen.size > max) {
      problem(form.getAttribute('data-too-large').replace('{size}', String(Math.ceil(chosen.size / 1024))));
      return;
    }
    save.disabled = true;
    var reader = new window.FileReader();
    reader.onload = function () {
      save.disabled = false;
      var bytes = new Uint8Array(reader.result);
      var found = kind(bytes);
      if (found === 'svg') return problem(form.getAttribute('data-svg'));
      if (found !== 'image') return problem(form.getAttribute('data-unsupported'));
      data.value = base64(bytes);
    };
    reader.onerror = function () {
      save.disabled = false;
      problem(form.getAttribute('data-unreadable'));
    };
    reader.readAsArrayBuffer(chosen);
  });
})();
