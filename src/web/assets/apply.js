// The application form: posts JSON to /v1/applications and shows each issue next to its field.
(function () {
  'use strict';
  var form = document.getElementById('application-form');
  if (!form) return;
  var messages = JSON.parse(document.getElementById('messages').textContent);
  var formError = document.getElementById('form-error');
  var button = form.querySelector('button[type="submit"]');
  var buttonLabel = button.textContent;
  var vertical = document.getElementById('vertical');
  var otherField = form.querySelector('[data-field="verticalOther"]');
  var idempotency = { key: null, body: null };

  function syncVerticalOther() {
    otherField.hidden = vertical.value !== 'other';
  }
  vertical.addEventListener('change', syncVerticalOther);
  syncVerticalOther();

  function newKey() {
    if (window.crypto && window.crypto.randomUUID) return window.crypto.randomUUID();
    var bytes = new Uint8Array(16);
    window.crypto.getRandomValues(bytes);
    return Array.prototype.map
      .call(bytes, function (b) {
        return ('0' + b.toString(16)).slice(-2);
      })
      .join('');
  }

  function collect() {
    var body = {};
    var data = new FormData(form);
    data.forEach(function (raw, name) {
      var value = String(raw).trim();
      if (name === 'verticalOther' && data.get('vertical') !== 'other') return;
      // An empty field is absent: optional ones are dropped, required ones are reported as required.
      if (value === '') return;
      if (name === 'monthlyVolumeUSD') {
        body[name] = /^\d{1,16}$/.test(value) ? Number(value) : value;
        return;
      }
      body[name] = value;
    });
    return body;
  }

  function clearErrors() {
    formError.hidden = true;
    formError.textContent = '';
    form.querySelectorAll('[data-error-for]').forEach(function (el) {
      el.hidden = true;
      el.textContent = '';
    });
    form.querySelectorAll('[aria-invalid]').forEach(function (el) {
      el.removeAttribute('aria-invalid');
    });
  }

  function showFormError(text) {
    formError.textContent = text;
    formError.hidden = false;
  }

  function issueMessage(issue) {
    return messages.issues[issue.path + '.' + issue.code] || messages.issues[issue.code] || issue.message;
  }

  function showIssues(issues) {
    var unplaced = [];
    issues.forEach(function (issue) {
      var slot = form.querySelector('[data-error-for="' + issue.path.split('.')[0] + '"]');
      if (!slot || slot.closest('.field').hidden) {
        unplaced.push(issue.path ? issue.path + ': ' + issueMessage(issue) : issueMessage(issue));
        return;
      }
      if (!slot.hidden) return;
      slot.textContent = issueMessage(issue);
      slot.hidden = false;
      var input = document.getElementById(slot.getAttribute('data-error-for'));
      if (input) input.setAttribute('aria-invalid', 'true');
    });
    showFormError([messages.formErrors.fix].concat(unplaced).join(' '));
    var first = form.querySelector('[aria-invalid="true"]');
    if (first) first.focus();
  }

  form.addEventListener('submit', function (event) {
    event.preventDefault();
    clearErrors();
    var body = collect();
    var serialized = JSON.stringify(body);
    // A retry of the same submission reuses its key, so a lost response never files twice.
    if (idempotency.body !== serialized) idempotency = { key: newKey(), body: serialized };
    button.disabled = true;
    button.textContent = button.getAttribute('data-submitting');
    fetch(form.getAttribute('data-endpoint'), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Idempotency-Key': idempotency.key },
      body: serialized,
      credentials: 'same-origin',
    })
      .then(function (response) {
        return response.json().then(function (payload) {
          return { status: response.status, payload: payload };
        });
      })
      .then(function (result) {
        if (result.status === 201) {
          form.hidden = true;
          document.getElementById('application-id').textContent = result.payload.id;
          var success = document.getElementById('application-success');
          success.hidden = false;
          // The form and its focused button are gone; move focus (and the view) to the confirmation.
          success.querySelector('h2').focus();
          return;
        }
        var error = result.payload && result.payload.error;
        if (error && error.code === 'validation_failed' && error.details && error.details.issues) {
          showIssues(error.details.issues);
        } else if (error && error.code === 'too_many_requests') {
          showFormError(messages.formErrors.rateLimited);
        } else {
          showFormError(messages.formErrors.generic + ' ' + (error ? error.requestId : ''));
        }
      })
      .catch(function () {
        showFormError(messages.formErrors.network);
      })
      .finally(function () {
        button.disabled = false;
        button.textContent = buttonLabel;
      });
  });
})();
