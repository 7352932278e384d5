// The hosted checkout: card form checks (the server checks again), the 3-D Secure hand-over, the
// bank-transfer status that updates without a reload, and a card attempt in progress. No data leaves
// the page except through the form.
(function () {
  'use strict';

  // Asks `url` again every 2 seconds (4 after a network failure) until `settled` says that the answer,
  // as `read` gives it, is final; then `done`.
  var pollUntil = function (url, accept, read, settled, done) {
    var poll = function () {
      fetch(url, { headers: { accept: accept }, cache: 'no-store', credentials: 'omit' })
        .then(read)
        .then(function (answer) {
          if (settled(answer)) {
            done();
            return;
          }
          window.setTimeout(poll, 2000);
        })
        .catch(function () {
          window.setTimeout(poll, 4000);
        });
    };
    window.setTimeout(poll, 2000);
  };

  // ---------------------------------------------------------------- 3-D Secure: continue to the bank
  var continueLink = document.querySelector('a[data-auto-continue]');
  if (continueLink && /^https?:\/\//.test(continueLink.href)) {
    // A navigation, not a form post: the page's form-action policy does not apply to it.
    window.location.replace(continueLink.href);
  }

  // ---------------------------------------------------------------- card form
  var form = document.getElementById('card-form');
  if (form) {
    var data = JSON.parse(document.getElementById('checkout-data').textContent);
    var formError = document.getElementById('form-error');
    var button = form.querySelector('button[type="submit"]');
    var submitted = false;

    // The Luhn check of a string of digits (the server checks again, with luhnValid of
    // src/shared/card-numbers.ts): from the right, every second digit counts doubled, as the sum of the
    // double's digits (DOUBLED[d]).
    var DOUBLED = [0, 2, 4, 6, 8, 1, 3, 5, 7, 9];
    var luhn = function (digits) {
      var sum = 0;
      for (var i = digits.length - 1, doubled = false; i >= 0; i--, doubled = !doubled) {
        var digit = digits.charCodeAt(i) - 48;
        sum += doubled ? DOUBLED[digit] : digit;
      }
      return sum % 10 === 0;
    };

    var parseExpiry = function (text) {
      var match = /^(\d{1,2})\s*\/?\s*(\d{2}|\d{4})$/.exec(text);
      if (!match) return null;
      if (match[1].length === 1 && match[2].length === 2 && !/[\s/]/.test(text)) return null;
      var month = Number(match[1]);
      var year = match[2].length === 2 ? 2000 + Number(match[2]) : Number(match[2]);
      if (month < 1 || month > 12 || year < 2000 || year > 2099) return null;
      return { month: month, year: year };
    };

    var check = function () {
      var issues = {};
      var name = form.holderName.value.trim();
      var number = form.cardNumber.value.replace(/[\s-]/g, '');
      var expiryText = form.expiry.value.trim();
      var cvc = form.cvc.value.trim();
      if (name === '') issues.holderName = 'required';
      else if (/\d/.test(name)) issues.holderName = 'invalid_name';
      if (number === '') issues.cardNumber = 'required';
      else if (!/^\d{12,19}$/.test(number) || !luhn(number)) issues.cardNumber = 'invalid_number';
      var expiry = parseExpiry(expiryText);
      var current = data.month.split('-');
      if (expiryText === '') issues.expiry = 'required';
      else if (!expiry) issues.expiry = 'invalid_expiry';
      else if (expiry.year * 12 + expiry.month < Number(current[0]) * 12 + Number(current[1])) {
        issues.expiry = 'expired';
      }
      if (cvc === '') issues.cvc = 'required';
      else if (!/^\d{3,4}$/.test(cvc)) issues.cvc = 'invalid_cvc';
      return issues;
    };

    var show = function (issues) {
      var first = null;
      ['holderName', 'cardNumber', 'expiry', 'cvc'].forEach(function (field) {
        var input = form.elements[field];
        var error = form.querySelector('[data-error-for="' + field + '"]');
        if (issues[field]) {
          input.setAttribute('aria-invalid', 'true');
          error.textContent = data.issues[issues[field]];
          error.hidden = false;
          if (!first) first = input;
        } else {
          input.removeAttribute('aria-invalid');
          error.textContent = '';
          error.hidden = true;
        }
      });
      if (first) {
        formError.textContent = data.fix;
        formError.hidden = false;
        first.focus();
      } else {
        formError.textContent = '';
        formError.hidden = true;
      }
      return first === null;
    };

    form.addEventListener('submit', function (event) {
      // One attempt per click: a second submission would use up another attempt.
      if (submitted || !show(check())) {
        event.preventDefault();
        return;
      }
      submitted = true;
      button.disabled = true;
      button.textContent = data.paying;
    });

    // A field corrected after an error loses its error message.
    form.addEventListener('input', function (event) {
      var input = event.target;
      if (input.getAttribute('aria-invalid') !== 'true') return;
      var issues = check();
      if (!issues[input.name]) {
        input.removeAttribute('aria-invalid');
        var error = form.querySelector('[data-error-for="' + input.name + '"]');
        error.textContent = '';
        error.hidden = true;
      }
    });

    // Back from the browser's page cache: the form can be sent again.
    window.addEventListener('pageshow', function () {
      submitted = false;
      button.disabled = false;
    });
  }

  // ---------------------------------------------------------------- bank transfer: status without reload
  var status = document.getElementById('transfer-status');
  if (status) {
    var pageUrl = status.getAttribute('data-page-url');
    pollUntil(
      status.getAttribute('data-status-url'),
      'application/json',
      function (response) {
        return response.ok ? response.json() : null;
      },
      function (body) {
        return body && body.status !== 'pending';
      },
      function () {
        window.location.assign(pageUrl);
      },
    );
  }

  // ---------------------------------------------------------------- a card attempt in progress
  // The page is asked again until it no longer says "in progress", then shown: the outcome, the bank's
  // page or the form. (Without a script, a refresh in <noscript> reloads it.)
  var inProgress = document.getElementById('in-progress');
  if (inProgress) {
    var inProgressUrl = inProgress.getAttribute('data-page-url');
    pollUntil(
      inProgressUrl,
      'text/html',
      function (response) {
        return response.text();
      },
      function (text) {
        return text.indexOf('id="in-progress"') === -1;
      },
      function () {
        window.location.replace(inProgressUrl);
      },
    );
  }

  // ---------------------------------------------------------------- the sandbox's simulated transfer
  var simulate = document.getElementById('simulate-transfer');
  if (simulate) {
    simulate.addEventListener('submit', function (event) {
      var simulateButton = simulate.querySelector('button');
      if (simulateButton.disabled) {
        event.preventDefault();
        return;
      }
      simulateButton.disabled = true;
      simulateButton.textContent = simulateButton.getAttribute('data-busy');
    });
  }
})();
