/* The card form: card data goes only to the card SDK; the terminal gets the token, brand, last four. */
(function () {
  "use strict";

  var PROTOCOL = 1;
  var FIELDS = ["number", "holder-name", "holder-document", "exp-month", "exp-year", "cvv"];
  // The service names the offending property (spec §7); compared without case or punctuation.
  var FIELD_OF = {
    cardbin: "number", bin: "number", cardnumber: "number", number: "number",
    brand: "number", cardbrand: "number",
    cvv: "cvv", securitycode: "cvv",
    cardholdername: "holder-name", holdername: "holder-name", name: "holder-name",
    cardholderdocument: "holder-document", holderdocument: "holder-document",
    document: "holder-document",
    expirationmonth: "exp-month", month: "exp-month",
    expirationyear: "exp-year", year: "exp-year"
  };
  var TOKEN_PATTERN = /^card_t\/[A-Za-z0-9_\-+\/=.]{1,512}$/;
  var FIELD_NAME_PATTERN = /^[A-Za-z][A-Za-z0-9_.\[\]]{0,63}$/;

  var config = window.CHECKOUT_CARD_CONFIG || {};
  var allTexts = window.CHECKOUT_CARD_TEXTS || {};

  var state = {
    language: allTexts[config.language] ? config.language : "pt-BR",
    bridge: null,
    sdk: "loading", // "loading" | "ready" | "unavailable"
    sdkReason: null,
    readySent: false,
    credentialsSet: false,
    busy: false,
    bin: "",
    brand: null,
    brandAsk: 0,
    pendingCard: null,
    holder: null, // { name, document } while the holder is the customer
    statusKey: null,
    statusArgs: null,
    statusProblem: false
  };

  function el(id) { return document.getElementById(id); }

  function t(key, args) {
    var texts = allTexts[state.language] || allTexts["pt-BR"] || {};
    var text = texts[key] || key;
    if (args) {
      Object.keys(args).forEach(function (name) { text = text.split("{" + name + "}").join(args[name]); });
    }
    return text;
  }

  function digitsOf(text) { return String(text || "").replace(/\D/g, ""); }

  // Keeps a message from the service short and without long digit runs before it is shown
  // or passed on: a service message echoing a card number must not carry it further.
  function clean(message) {
    return String(message == null ? "" : message).slice(0, 300).replace(/\d(?:[ \-.]?\d){5,}/g, "…");
  }

  // ------------------------------------------------------------------ checks (before any SDK call)

  function luhnValid(digits) {
    if (!/^\d{12,19}$/.test(digits)) { return false; }
    var total = 0;
    for (var i = 0; i < digits.length; i += 1) {
      var d = digits.charCodeAt(digits.length - 1 - i) - 48;
      if (i % 2 === 1) { d *= 2; if (d > 9) { d -= 9; } }
      total += d;
    }
    return total % 10 === 0;
  }

  function cpfValid(n) {
    if (!/^\d{11}$/.test(n) || /^(\d)\1{10}$/.test(n)) { return false; }
    for (var len = 9; len <= 10; len += 1) {
      var total = 0;
      for (var i = 0; i < len; i += 1) { total += (n.charCodeAt(i) - 48) * (len + 1 - i); }
      var rest = total % 11;
      var check = rest < 2 ? 0 : 11 - rest;
      if (check !== n.charCodeAt(len) - 48) { return false; }
    }
    return true;
  }

  function cnpjValid(n) {
    if (!/^\d{14}$/.test(n) || /^(\d)\1{13}$/.test(n)) { return false; }
    var w1 = [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2];
    var w2 = [6].concat(w1);
    var weights = [w1, w2];
    for (var k = 0; k < 2; k += 1) {
      var w = weights[k];
      var total = 0;
      for (var i = 0; i < w.length; i += 1) { total += (n.charCodeAt(i) - 48) * w[i]; }
      var rest = total % 11;
      var check = rest < 2 ? 0 : 11 - rest;
      if (check !== n.charCodeAt(w.length) - 48) { return false; }
    }
    return true;
  }

  function isAmex(digits) { return /^3[47]/.test(digits); }

  // How many digits a complete number of this brand has (Amex 15, Diners 14, the rest 16).
  function fullLength(digits) {
    if (isAmex(digits)) { return 15; }
    if (/^3(0[0-5]|[689])/.test(digits)) { return 14; }
    return 16;
  }

  // Typing on at the end of a complete field moves to the next field the clerk types in
  // (holder fields filled from the customer are skipped): no Tab between card fields.
  function advanceFrom(input) {
    if (input.selectionStart !== input.value.length) { return; }
    var at = FIELDS.indexOf(input.id);
    for (var i = at + 1; i < FIELDS.length; i += 1) {
      var next = el(FIELDS[i]);
      if (next.tabIndex >= 0) { next.focus(); next.select(); return; }
    }
  }

  // A two-digit year is this century's: "31" is 2031.
  function fullYear(text) { return text.length === 2 ? "20" + text : text; }

  function onExpiryInput(event) {
    var input = event.target;
    var digits = digitsOf(input.value);
    if (input.id === "exp-month") {
      var month = parseInt(digits, 10);
      if (digits.length === 2 && month >= 1 && month <= 12) { advanceFrom(input); }
      return;
    }
    // "20" could begin 2031: a two-digit year moves on only when it is not already past.
    var thisYear = new Date().getFullYear();
    if (digits.length === 4 || (digits.length === 2 && 2000 + parseInt(digits, 10) >= thisYear)) {
      advanceFrom(input);
    }
  }

  function groupNumber(digits) {
    var sizes = isAmex(digits) ? [4, 6, 5] : [4, 4, 4, 4, 3];
    var parts = [];
    var at = 0;
    for (var i = 0; i < sizes.length && at < digits.length; i += 1) {
      parts.push(digits.slice(at, at + sizes[i]));
      at += sizes[i];
    }
    if (at < digits.length) { parts.push(digits.slice(at)); }
    return parts.join(" ");
  }

  // ------------------------------------------------------------------ showing things

  function setError(field, message) {
    var input = el(field);
    var box = el(field + "-error");
    if (box) { box.textContent = message || ""; }
    if (input) { input.setAttribute("aria-invalid", message ? "true" : "false"); }
  }

  function clearErrors() { FIELDS.forEach(function (f) { setError(f, ""); }); }

  function showStatus(key, args, problem) {
    state.statusKey = key;
    state.statusArgs = args || null;
    state.statusProblem = !!problem;
    renderStatus();
  }

  function showServiceMessage(text) {
    // A message from the service is shown as it came (not translated), in the status line.
    state.statusKey = null;
    state.statusArgs = null;
    state.statusProblem = true;
    el("status").textContent = text;
    el("status").className = "problem";
  }

  function renderStatus() {
    var box = el("status");
    if (!state.statusKey) { if (!state.statusProblem) { box.textContent = ""; } return; }
    box.textContent = t(state.statusKey, state.statusArgs);
    box.className = state.statusProblem ? "problem" : "";
  }

  function showBrand(brand) { el("brand").textContent = brand || ""; }

  function showServiceUnreachable(shown) {
    var box = el("service-state");
    box.hidden = !shown;
    box.textContent = shown ? t("unreachable") : "";
  }

  function renderSdkState() {
    var box = el("sdk-state");
    if (state.sdk === "unavailable") {
      box.hidden = false;
      box.textContent = t("sdk_unavailable");
      el("card-fields").disabled = true;
    } else if (state.sdk === "loading") {
      box.hidden = false;
      box.textContent = t("loading");
      el("card-fields").disabled = true;
    } else {
      box.hidden = true;
      box.textContent = "";
      el("card-fields").disabled = false;
    }
  }

  function applyLanguage(language) {
    if (!allTexts[language]) { return; }
    state.language = language;
    document.documentElement.lang = language;
    Array.prototype.forEach.call(document.querySelectorAll("[data-text]"), function (node) {
      node.textContent = t(node.getAttribute("data-text"));
    });
    el("brand").setAttribute("aria-label", t("brand"));
    renderSdkState();
    renderStatus();
    if (!el("service-state").hidden) { showServiceUnreachable(true); }
  }

  function setBusy(busy) {
    state.busy = busy;
    el("submit").setAttribute("aria-busy", busy ? "true" : "false");
  }

  // The holder as the terminal's customer ("titular = cliente"): a name and a CPF/CNPJ typed
  // once on the charge screen, not card data. Filled holder fields leave the Tab order (and
  // the auto-advance skips them), so the clerk goes from the number to the expiry; a click
  // still reaches them.
  function applyHolder() {
    var holder = state.holder;
    el("holder-name").tabIndex = holder ? -1 : 0;
    el("holder-document").tabIndex = holder ? -1 : 0;
    if (!holder) { return; }
    el("holder-name").value = holder.name;
    el("holder-document").value = holder.document;
    setError("holder-name", "");
    setError("holder-document", "");
  }

  function onHolder(name, documentDigits) {
    var given = String(name || "").slice(0, 60);
    var digits = digitsOf(documentDigits).slice(0, 14);
    state.holder = given || digits ? { name: given, document: digits } : null;
    if (!state.holder) {
      el("holder-name").value = "";
      el("holder-document").value = "";
    }
    applyHolder();
  }

  function clearCardFields() {
    FIELDS.forEach(function (f) { el(f).value = ""; });
    applyHolder();
    clearErrors();
    state.bin = "";
    state.brand = null;
    state.brandAsk += 1;
    state.pendingCard = null;
    showBrand(null);
  }

  // ------------------------------------------------------------------ SDK errors

  function sdkErrorHandler(stage) {
    return function (body) { handleSdkError(stage, body); };
  }

  function handleSdkError(stage, body) {
    var errors = body && body.errors;
    var report = [];
    var network = false;
    if (errors && !Array.isArray(errors)) {
      // {errors: {message}}: the request never got an answer (network, TLS, CORS).
      network = true;
      // The banner says the service cannot be reached; the line by the button says what
      // became of a card being added (a lookup while typing adds nothing to say).
      showServiceUnreachable(true);
      var adding = state.busy || stage === "token" || stage === "credentials";
      showStatus(adding ? "card_not_sent" : null, null, adding);
      report.push({ errorCode: null, field: null, message: clean(errors.message || "Network Error") });
    } else {
      showServiceUnreachable(false);
      // This reply supersedes earlier messages: all of them for a card, the number's for a BIN.
      if (stage === "brand") { setError("number", ""); } else { clearErrors(); }
      var list = Array.isArray(errors) ? errors : [];
      var general = [];
      list.slice(0, 20).forEach(function (item) {
        item = item || {};
        var fieldName = typeof item.field === "string" ? item.field : "";
        var key = fieldName.toLowerCase().replace(/[^a-z0-9]/g, "");
        var target = FIELD_OF[key] || FIELD_OF[key.split(".").pop()] || null;
        var message = clean(item.message) || t("service_error");
        if (target) { setError(target, message); } else { general.push(message); }
        report.push({
          errorCode: typeof item.errorCode === "number" && isFinite(item.errorCode) ? Math.trunc(item.errorCode) : null,
          field: FIELD_NAME_PATTERN.test(fieldName) ? fieldName : null,
          message: message
        });
      });
      if (general.length) { showServiceMessage(general.join(" ")); }
      else if (!list.length) { showStatus("service_error", null, true); }
      else { showStatus(null); el("status").textContent = ""; }
      var firstBad = FIELDS.filter(function (f) { return el(f).getAttribute("aria-invalid") === "true"; })[0];
      if (firstBad) { el(firstBad).focus(); }
    }
    if (state.bridge) {
      state.bridge.sdkFailed(JSON.stringify({ stage: stage, network: network, errors: report }));
    }
  }

  // ------------------------------------------------------------------ brand

  function lookupBrand(bin, then) {
    state.brandAsk += 1;
    var ask = state.brandAsk;
    try {
      window.CheckoutTransparent.getCardBrand({
        bin: bin,
        success: function (reply) {
          if (ask !== state.brandAsk) {
            // The number changed while this reply was on its way: a submit waiting on it ends.
            if (then) { then(null, "stale"); }
            return;
          }
          showServiceUnreachable(false);
          var brand = reply && typeof reply.brand === "string" && reply.brand ? reply.brand : null;
          state.brand = brand;
          showBrand(brand);
          if (!brand) { setError("number", t("brand_missing")); }
          if (then) { then(brand); }
        },
        error: function (body) {
          if (ask !== state.brandAsk) {
            if (then) { then(null, "stale"); }
            return;
          }
          state.brand = null;
          showBrand(null);
          handleSdkError("brand", body);
          if (then) { then(null, "reported"); }
        }
      });
    } catch (e) {
      console.error("card page: getCardBrand threw " + (e && e.name));
      if (then) { then(null); }
    }
  }

  function onNumberInput(event) {
    var input = event.target;
    var caret = input.selectionStart == null ? input.value.length : input.selectionStart;
    var before = digitsOf(input.value.slice(0, caret)).length;
    var digits = digitsOf(input.value).slice(0, 19);
    var shown = groupNumber(digits);
    input.value = shown;
    var pos = 0;
    var seen = 0;
    while (pos < shown.length && seen < before) {
      if (shown.charAt(pos) !== " ") { seen += 1; }
      pos += 1;
    }
    if (document.activeElement === input) { input.setSelectionRange(pos, pos); }
    setError("number", "");
    if (digits.length === fullLength(digits) && luhnValid(digits)) { advanceFrom(input); }
    if (digits.length < 6) {
      state.bin = "";
      state.brand = null;
      state.brandAsk += 1;
      showBrand(null);
      return;
    }
    var bin = digits.slice(0, 6);
    if (bin === state.bin) { return; }
    state.bin = bin;
    state.brand = null;
    showBrand(null);
    if (state.sdk === "ready") { lookupBrand(bin, null); }
  }

  function onDigitsInput(event) {
    var input = event.target;
    var kept = input.value.replace(/[^\d.\/\- ]/g, "");
    if (input.id !== "holder-document") { kept = digitsOf(kept); }
    if (kept !== input.value) { input.value = kept; }
    setError(input.id, "");
  }

  // ------------------------------------------------------------------ submit

  function collect() {
    clearErrors();
    var bad = [];
    var number = digitsOf(el("number").value);
    if (!luhnValid(number)) { setError("number", t("number_invalid")); bad.push("number"); }

    var holderName = el("holder-name").value.replace(/\s+/g, " ").trim();
    if (holderName.length < 2 || /[0-9]/.test(holderName)) {
      setError("holder-name", t("name_invalid"));
      bad.push("holder-name");
    }

    var documentDigits = digitsOf(el("holder-document").value);
    if (!(cpfValid(documentDigits) || cnpjValid(documentDigits))) {
      setError("holder-document", t("document_invalid"));
      bad.push("holder-document");
    }

    var monthText = digitsOf(el("exp-month").value);
    var month = parseInt(monthText, 10);
    if (!monthText || !(month >= 1 && month <= 12)) {
      setError("exp-month", t("month_invalid"));
      bad.push("exp-month");
    }
    var yearText = fullYear(digitsOf(el("exp-year").value));
    var now = new Date();
    var year = parseInt(yearText, 10);
    if (yearText.length !== 4) {
      setError("exp-year", t("year_invalid"));
      bad.push("exp-year");
    } else if (bad.indexOf("exp-month") < 0 &&
               (year < now.getFullYear() || (year === now.getFullYear() && month < now.getMonth() + 1))) {
      setError("exp-year", t("expired"));
      bad.push("exp-year");
    }

    var cvv = digitsOf(el("cvv").value);
    var cvvLength = isAmex(number) ? 4 : 3;
    if (cvv.length !== cvvLength) { setError("cvv", t("cvv_invalid")); bad.push("cvv"); }

    if (bad.length) {
      el(bad[0]).focus();
      return null;
    }
    return {
      brand: null,
      number: number,
      holderName: holderName,
      holderDocument: documentDigits,
      expirationMonth: (month < 10 ? "0" : "") + month,
      expirationYear: yearText,
      cvv: cvv
    };
  }

  function finish() { setBusy(false); }

  // A submit that ends in the page, with no token and no SDK error callback, says so to the
  // terminal (which may be waiting to charge the card): which step, never a field or a value.
  function refuse(step) {
    if (state.bridge) { state.bridge.submitRefused(JSON.stringify({ step: step })); }
  }

  function submit() {
    if (state.busy) { refuse("busy"); return; }
    if (state.sdk !== "ready") { renderSdkState(); refuse("sdk"); return; }
    var card = collect();
    if (!card) { refuse("fields"); return; }
    setBusy(true);
    showStatus("working", null, false);
    var bin = card.number.slice(0, 6);
    var withBrand = function (brand, why) {
      if (!brand) {
        finish();
        card = null;
        if (why === "stale") { showStatus(null); refuse("brand"); return; }
        // A lookup that never got an answer says "unreachable" already: that is not a brand
        // the service failed to recognise, and the two messages would contradict each other.
        if (!el("number-error").textContent && el("service-state").hidden) {
          setError("number", t("brand_missing"));
        }
        // The SDK's error callback has told the terminal already.
        if (why !== "reported") { refuse("brand"); }
        return;
      }
      card.brand = brand;
      askCredentials(card);
      card = null;
    };
    if (state.brand && state.bin === bin) {
      withBrand(state.brand);
    } else {
      state.bin = bin;
      lookupBrand(bin, withBrand);
    }
  }

  function askCredentials(card) {
    if (state.credentialsSet) { createTemporaryCard(card); return; }
    state.pendingCard = card;
    state.bridge.credentialsNeeded(JSON.stringify({ purpose: "createTemporaryCard" }), function (accepted) {
      if (!accepted) {
        state.pendingCard = null;
        finish();
        showStatus("credentials_failed", null, true);
      }
    });
  }

  function onCredentials(merchantCredential, token, kind) {
    if (!state.credentialsSet) {
      try {
        // The SDK freezes its credentials after the first call; a second call would throw.
        // A merchant token (the docs' form) is hashed by the SDK itself with the CNPJ.
        var credentials = { merchantCredential: merchantCredential };
        if (kind === "merchant") {
          credentials.merchantToken = token;
        } else {
          credentials.transparentToken = token;
        }
        window.CheckoutTransparent.setCredentials(credentials);
        state.credentialsSet = true;
      } catch (e) {
        console.error("card page: setCredentials failed (" + (e && e.name) + ")");
        var waiting = state.pendingCard !== null;
        state.pendingCard = null;
        finish();
        showStatus("credentials_failed", null, true);
        if (waiting) { refuse("credentials"); }
        return;
      }
    }
    var card = state.pendingCard;
    state.pendingCard = null;
    if (card) { createTemporaryCard(card); } else { finish(); }
  }

  function onCredentialsRefused(reason) {
    state.pendingCard = null;
    finish();
    showStatus(reason === "missing" ? "credentials_missing" : "credentials_unavailable", null, true);
  }

  function createTemporaryCard(card) {
    var lastFour = card.number.slice(-4);
    var brand = card.brand;
    var holderName = card.holderName;
    try {
      window.CheckoutTransparent.createTemporaryCard({
        card: card,
        success: function (reply) {
          // Whatever the reply, the card data has done its job: clear it from the form now.
          clearCardFields();
          showServiceUnreachable(false);
          var token = reply && reply.temporaryToken;
          if (typeof token !== "string" || !TOKEN_PATTERN.test(token)) {
            finish();
            showStatus("bad_reply", null, true);
            state.bridge.sdkFailed(JSON.stringify({
              stage: "token", network: false,
              errors: [{ errorCode: null, field: null, message: "unexpected reply without a card_t/ token" }]
            }));
            return;
          }
          var message = { token: token, brand: brand, lastFour: lastFour, holderName: holderName };
          state.bridge.tokenCreated(JSON.stringify(message), function (accepted) {
            finish();
            if (accepted) {
              showStatus("card_added", { brand: brand, last4: lastFour }, false);
            } else {
              showStatus("token_refused", null, true);
            }
            el("number").focus();
          });
        },
        error: function (body) {
          finish();
          handleSdkError("token", body);
        }
      });
    } catch (e) {
      console.error("card page: createTemporaryCard threw " + (e && e.name));
      finish();
      showStatus("bad_reply", null, true);
      refuse("token");
    }
    card = null;
  }

  // ------------------------------------------------------------------ start-up

  function sendReady() {
    if (state.readySent || !state.bridge || state.sdk === "loading") { return; }
    state.readySent = true;
    state.bridge.pageReady(JSON.stringify({
      protocol: PROTOCOL,
      sdk: state.sdk,
      language: state.language,
      reason: state.sdkReason
    }));
    sendBrowserInfo();
  }

  // What 3-D Secure enrollment asks of the shopper's browser: numbers, flags and a language
  // only (the terminal adds the user agent and Accept headers, which are its own).
  function sendBrowserInfo() {
    var screenInfo = window.screen || {};
    var depth = Math.min(48, Math.max(1, Math.round(screenInfo.colorDepth || 24)));
    var offset = Math.min(900, Math.max(-900, new Date().getTimezoneOffset()));
    var language = String(navigator.language || "pt-BR");
    if (!/^[A-Za-z]{2,3}(-([A-Za-z]{2,8}|[0-9]{3}))?$/.test(language)) { language = "pt-BR"; }
    state.bridge.browserInfo(JSON.stringify({
      javaEnabled: false,
      colorDepth: depth,
      screenHeight: Math.min(16384, Math.max(1, Math.round(screenInfo.height || 1))),
      screenWidth: Math.min(16384, Math.max(1, Math.round(screenInfo.width || 1))),
      timeDifference: offset,
      language: language
    }));
  }

  function sdkSettled(status, reason) {
    if (state.sdk !== "loading") { return; }
    state.sdk = status;
    state.sdkReason = reason || null;
    renderSdkState();
    if (status === "unavailable") {
      console.error("card page: the card SDK is unavailable (" + reason + ")");
    }
    sendReady();
  }

  function loadSdk() {
    if (!config.sdkUrl) { sdkSettled("unavailable", "no SDK address configured"); return; }
    var timer = setTimeout(function () { sdkSettled("unavailable", "the SDK script took too long to load"); },
                           config.sdkLoadTimeoutMs || 15000);
    var script = document.createElement("script");
    script.src = config.sdkUrl;
    script.async = true;
    script.onload = function () {
      clearTimeout(timer);
      var sdk = window.CheckoutTransparent;
      if (sdk && typeof sdk.setCredentials === "function" && typeof sdk.getCardBrand === "function" &&
          typeof sdk.createTemporaryCard === "function") {
        sdkSettled("ready", null);
      } else {
        sdkSettled("unavailable", "the SDK script loaded but has no CheckoutTransparent API");
      }
    };
    script.onerror = function () {
      clearTimeout(timer);
      sdkSettled("unavailable", "the SDK script could not be loaded");
    };
    document.head.appendChild(script);
  }

  function connectChannel() {
    if (!window.qt || !window.qt.webChannelTransport || typeof window.QWebChannel !== "function") {
      console.error("card page: no web channel to the terminal");
      return;
    }
    new window.QWebChannel(window.qt.webChannelTransport, function (channel) {
      var bridge = channel.objects.cardBridge;
      if (!bridge) { console.error("card page: the terminal published no card bridge"); return; }
      state.bridge = bridge;
      bridge.credentialsProvided.connect(onCredentials);
      bridge.credentialsRefused.connect(onCredentialsRefused);
      bridge.languageChanged.connect(applyLanguage);
      bridge.clearRequested.connect(function () {
        clearCardFields();
        showServiceUnreachable(false);
        showStatus(null, null, false);
        el("status").textContent = "";
      });
      bridge.submitRequested.connect(submit);
      bridge.holderRequested.connect(onHolder);
      bridge.focusRequested.connect(function () { el("number").focus(); });
      sendReady();
    });
  }

  function start() {
    applyLanguage(state.language);
    el("number").addEventListener("input", onNumberInput);
    ["holder-document", "exp-month", "exp-year", "cvv"].forEach(function (id) {
      el(id).addEventListener("input", onDigitsInput);
    });
    el("holder-name").addEventListener("input", function () { setError("holder-name", ""); });
    ["exp-month", "exp-year"].forEach(function (id) {
      el(id).addEventListener("input", onExpiryInput);
    });
    el("card-form").addEventListener("submit", function (event) { event.preventDefault(); submit(); });
    connectChannel();
    loadSdk();
  }

  // What the terminal's tests and diagnostics may see: no field values, ever.
  window.checkoutCard = Object.freeze({
    state: function () {
      return {
        sdk: state.sdk, ready: state.readySent, busy: state.busy, brand: state.brand,
        language: state.language, credentialsSet: state.credentialsSet
      };
    },
    sdkErrorHandler: sdkErrorHandler
  });

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
}());
