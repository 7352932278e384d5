// Dashboard account pages: forgot and reset password, two-factor setup, password change. Each form posts
// JSON to its /v1/auth/... endpoint; signed-in forms send the session's CSRF token in X-CSRF-Token.
(function () {
  'use strict';
  var messagesElement = document.getElementById('messages');
  if (!messagesElement) return;
  var messages = JSON.parse(messagesElement.textContent);

  function passwordMessage(text) {
    if (/^must be at least/.test(text)) return messages.password.too_short;
    if (/^must be at most/.test(text)) return messages.password.too_long;
    if (/repeat/.test(text)) return messages.password.repeated;
    if (/e-mail/.test(text)) return messages.password.contains_email;
    return text;
  }

  function errorText(status, payload) {
    var error = payload && payload.error;
    if (status === 429) return messages.rateLimited;
    if (status === 403) return messages.csrf;
    var issues = (error && error.details && error.details.issues) || [];
    if (error && error.code === 'validation_failed' && issues.length > 0) {
      return issues
        .map(function (issue) {
          if (issue.path === 'password' || issue.path === 'newPassword')
            return passwordMessage(issue.message);
          if (issue.path === 'currentPassword') return messages.wrongCurrent;
          if (issue.path === 'code') return messages.invalidCode;
          if (issue.path === 'token') return messages.resetInvalid;
          if (issue.path === 'email') return messages.invalidEmail;
          return issue.message;
        })
        .join(' ');
    }
    return messages.generic + ' ' + (error ? error.requestId : '');
  }

  function postJson(form, body) {
    var headers = { 'Content-Type': 'application/json' };
    var csrf = form.querySelector('input[name="_csrf"]');
    if (csrf) headers['X-CSRF-Token'] = csrf.value;
    return fetch(form.getAttribute('data-endpoint'), {
      method: 'POST',
      headers: headers,
      body: JSON.stringify(body),
      credentials: 'same-origin',
    }).then(function (response) {
      return response.json().then(function (payload) {
        return { status: response.status, payload: payload };
      });
    });
  }

  function field(form, name) {
    var input = form.querySelector('[name="' + name + '"]');
    return input ? input.value : '';
  }

  function showError(form, text) {
    var slot = form.querySelector('[data-form-error]');
    slot.textContent = text;
    slot.hidden = false;
  }

  function clearError(form) {
    var slot = form.querySelector('[data-form-error]');
    slot.textContent = '';
    slot.hidden = true;
  }

  /** Wires a form: `body(form)` returns the JSON body or a message to show instead; `done` handles 2xx. */
  function wire(id, body, done) {
    var form = document.getElementById(id);
    if (!form) return;
    var button = form.querySelector('button[type="submit"]');
    form.addEventListener('submit', function (event) {
      event.preventDefault();
      clearError(form);
      var payload = body(form);
      if (typeof payload === 'string') {
        showError(form, payload);
        return;
      }
      button.disabled = true;
      postJson(form, payload)
        .then(function (result) {
          if (result.status >= 200 && result.status < 300) done(form, result.payload);
          else showError(form, errorText(result.status, result.payload));
        })
        .catch(function () {
          showError(form, messages.generic);
        })
        .finally(function () {
          button.disabled = false;
        });
    });
  }

  wire(
    'forgot-form',
    function (form) {
      return { email: field(form, 'email').trim() };
    },
    function (form) {
      var sent = document.getElementById('forgot-sent');
      sent.textContent = messages.forgotSent;
      sent.hidden = false;
      form.hidden = true;
    },
  );

  wire(
    'reset-form',
    function (form) {
      if (field(form, 'password') !== field(form, 'passwordConfirmation')) return messages.passwordMismatch;
      return { token: form.getAttribute('data-token'), password: field(form, 'password') };
    },
    function (form) {
      form.hidden = true;
      document.getElementById('reset-done').hidden = false;
    },
  );

  wire(
    'totp-enroll-form',
    function () {
      return {};
    },
    function (form, payload) {
      document.getElementById('totp-qr').src = payload.qrCodeDataUrl;
      document.getElementById('totp-secret').textContent = payload.secret;
      form.hidden = true;
      document.getElementById('totp-setup').hidden = false;
      document.getElementById('verify-code').focus();
    },
  );

  wire(
    'totp-verify-form',
    function (form) {
      return { code: field(form, 'code').trim() };
    },
    function (_form, payload) {
      document.getElementById('totp-setup').hidden = true;
      var list = document.getElementById('recovery-codes');
      payload.recoveryCodes.forEach(function (code) {
        var item = document.createElement('li');
        var text = document.createElement('code');
        text.textContent = code;
        item.appendChild(text);
        list.appendChild(item);
      });
      document.getElementById('two-factor').setAttribute('data-state', 'on');
      document.getElementById('recovery-codes-panel').hidden = false;
    },
  );

  wire(
    'totp-disable-form',
    function (form) {
      return { code: field(form, 'code').trim() };
    },
    function () {
      window.location.reload();
    },
  );

  wire(
    'change-password-form',
    function (form) {
      if (field(form, 'newPassword') !== field(form, 'passwordConfirmation'))
        return messages.passwordMismatch;
      return { currentPassword: field(form, 'currentPassword'), newPassword: field(form, 'newPassword') };
    },
    function (form) {
      form.querySelectorAll('input[type="password"]').forEach(function (input) {
        input.value = '';
      });
      var success = form.querySelector('[data-form-success]');
      success.textContent = messages.changed;
      success.hidden = false;
    },
  );
})();
