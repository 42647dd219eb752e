// Shopkernel debug toolbar: loads the toolbar of this page's profile once the page is there, keeps room for it at the
// bottom of the page, remembers whether it is hidden, and lists the fetch and XHR calls the page makes afterwards.
// Plain script, no dependency; everything it writes into the page goes through textContent or our server's escaping.
(function () {
  'use strict';
  var script = document.currentScript;
  var token = script && script.getAttribute('data-token');
  if (!token || !/^[0-9a-f]{6}$/.test(token)) return;
  var host = document.getElementById('sk-toolbar-' + token);
  if (!host || host.getAttribute('data-started')) return;
  host.setAttribute('data-started', '1');

  var PROFILER = '/_profiler/';
  var HIDDEN_KEY = 'shopkernel.toolbar.hidden';
  var MAX_CALLS = 50;
  var nativeFetch = window.fetch ? window.fetch.bind(window) : null;
  var calls = [];
  var spacer = null;

  trackFetch();
  trackXhr();
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', function () { load(0); });
  else load(0);

  // --- the toolbar ----------------------------------------------------------------------------------------------

  /**
   * The profiler waits for a page whose request is still finishing; another instance behind a load balancer may
   * not have the profile yet: a 404 is tried again a few times before giving up.
   */
  function load(attempt) {
    if (!nativeFetch) return failed('this browser has no fetch()');
    nativeFetch(PROFILER + 'toolbar', { credentials: 'same-origin', cache: 'no-store', headers: { 'X-Debug-Toolbar-Of': token } })
      .then(function (response) {
        if (response.status === 404 && attempt < 6) {
          setTimeout(function () { load(attempt + 1); }, 100 * (attempt + 1));
          return null;
        }
        if (!response.ok) throw new Error('the profiler answered ' + response.status);
        return response.text();
      })
      .then(function (html) {
        if (html !== null) show(html);
      })
      .catch(function (error) {
        failed(error && error.message ? error.message : String(error));
      });
  }

  function show(html) {
    host.innerHTML = html;
    host.classList.remove('sk-loading');
    host.setAttribute('role', 'region');
    host.setAttribute('aria-label', 'Debug toolbar');
    var bar = host.querySelector('.sk-bar');
    var hide = host.querySelector('.sk-hide');
    var showButton = host.querySelector('.sk-show');
    spacer = document.createElement('div');
    spacer.className = 'sk-toolbar-spacer';
    spacer.setAttribute('aria-hidden', 'true');
    host.parentNode.insertBefore(spacer, host);
    setHidden(readHidden(), false);
    hide.addEventListener('click', function () { setHidden(true, true); showButton.focus(); });
    showButton.addEventListener('click', function () { setHidden(false, true); hide.focus(); });
    if (window.ResizeObserver) new ResizeObserver(fitSpacer).observe(bar);
    window.addEventListener('resize', fitSpacer);
    fitSpacer();
    wireBlocks(bar);
    renderCalls();
  }

  /** Without its toolbar, the page still gets a way to its profile, and the reason. */
  function failed(reason) {
    host.classList.remove('sk-loading');
    host.textContent = '';
    var bar = document.createElement('div');
    bar.className = 'sk-bar';
    var link = document.createElement('a');
    link.className = 'sk-profile';
    link.href = PROFILER + token;
    link.textContent = 'Profile ' + token + ' (the toolbar could not load: ' + reason + ')';
    bar.appendChild(link);
    host.appendChild(bar);
  }

  function setHidden(hidden, remember) {
    host.classList.toggle('sk-minimised', hidden);
    host.querySelector('.sk-show').hidden = !hidden;
    if (remember) {
      try {
        if (hidden) localStorage.setItem(HIDDEN_KEY, '1');
        else localStorage.removeItem(HIDDEN_KEY);
      } catch (e) {
        // Storage disabled: the choice lasts for this page only.
      }
    }
    fitSpacer();
  }

  function readHidden() {
    try {
      return localStorage.getItem(HIDDEN_KEY) === '1';
    } catch (e) {
      return false;
    }
  }

  function fitSpacer() {
    if (!spacer) return;
    var bar = host.querySelector('.sk-bar');
    spacer.style.height = host.classList.contains('sk-minimised') || !bar ? '0px' : bar.offsetHeight + 'px';
  }

  /** Details that would leave the screen on the right open leftwards; Escape closes the open one. */
  function wireBlocks(bar) {
    var blocks = bar.querySelectorAll('.sk-block');
    Array.prototype.forEach.call(blocks, function (block) {
      var open = function () {
        var info = block.querySelector('.sk-info');
        if (!info) return;
        info.classList.remove('sk-right');
        var rect = info.getBoundingClientRect();
        if (rect.right > document.documentElement.clientWidth) info.classList.add('sk-right');
      };
      block.addEventListener('mouseenter', open);
      block.addEventListener('focusin', open);
      block.addEventListener('mouseleave', function () { block.classList.remove('sk-dismissed'); });
      block.addEventListener('focusout', function (event) {
        if (!block.contains(event.relatedTarget)) block.classList.remove('sk-dismissed');
      });
      block.addEventListener('keydown', function (event) {
        if (event.key !== 'Escape') return;
        block.classList.add('sk-dismissed');
        var link = block.querySelector('.sk-value');
        if (link && document.activeElement !== link) link.focus();
      });
    });
  }

  // --- the page's fetch and XHR calls -----------------------------------------------------------------------------

  function trackFetch() {
    if (!nativeFetch) return;
    window.fetch = function (input, init) {
      var request = typeof Request !== 'undefined' && input instanceof Request ? input : null;
      var method = (init && init.method) || (request ? request.method : 'GET');
      var url = request ? request.url : String(input);
      var call = begin(method, url);
      return nativeFetch(input, init).then(
        function (response) {
          end(call, response.status, response.headers.get('X-Debug-Token'));
          return response;
        },
        function (error) {
          end(call, 0, null, error && error.name === 'AbortError' ? 'aborted' : 'network error');
          throw error;
        },
      );
    };
  }

  function trackXhr() {
    if (!window.XMLHttpRequest) return;
    var proto = XMLHttpRequest.prototype;
    var open = proto.open;
    var send = proto.send;
    proto.open = function (method, url) {
      this.__skCall = { method: method, url: String(url) };
      return open.apply(this, arguments);
    };
    proto.send = function () {
      var xhr = this;
      var info = xhr.__skCall;
      if (info) {
        var call = begin(info.method, info.url);
        xhr.addEventListener('loadend', function () {
          var debugToken = null;
          try {
            debugToken = xhr.getResponseHeader('X-Debug-Token');
          } catch (e) {
            // A header the browser does not expose (cross-origin): no link.
          }
          end(call, xhr.status, debugToken, xhr.status === 0 ? 'network error' : null);
        });
      }
      return send.apply(this, arguments);
    };
  }

  function begin(method, url) {
    var absolute;
    try {
      absolute = new URL(url, location.href);
    } catch (e) {
      absolute = null;
    }
    var call = {
      method: String(method || 'GET').toUpperCase(),
      url: absolute ? (absolute.origin === location.origin ? absolute.pathname + absolute.search : absolute.href) : String(url),
      sameOrigin: !!absolute && absolute.origin === location.origin,
      own: !!absolute && absolute.origin === location.origin && absolute.pathname.indexOf(PROFILER) === 0,
      started: performance.now(),
      duration: null,
      status: null,
      token: null,
      error: null,
    };
    if (call.own) return call;
    calls.push(call);
    if (calls.length > MAX_CALLS) calls.shift();
    renderCalls();
    return call;
  }

  function end(call, status, debugToken, error) {
    call.duration = performance.now() - call.started;
    call.status = status;
    call.error = error || null;
    // Another origin's token names a profile of another server: listed, not linked.
    call.token = call.sameOrigin && debugToken && /^[0-9a-f]{6}$/.test(debugToken) ? debugToken : null;
    if (!call.own) renderCalls();
  }

  function renderCalls() {
    var block = host.querySelector('.sk-block-ajax');
    if (!block || calls.length === 0) return;
    block.hidden = false;
    var pending = 0;
    var errors = 0;
    var body = block.querySelector('tbody');
    body.textContent = '';
    for (var i = calls.length - 1; i >= 0; i--) {
      var call = calls[i];
      if (call.status === null) pending++;
      var failedCall = call.error !== null || (call.status !== null && call.status >= 400);
      if (failedCall) errors++;
      var row = document.createElement('tr');
      if (failedCall) row.className = 'sk-error';
      cell(row, call.method);
      cell(row, call.status === null ? '...' : call.error && call.status === 0 ? call.error : String(call.status), call.status === null ? 'sk-pending' : '');
      cell(row, call.url, 'sk-url');
      cell(row, call.duration === null ? '' : Math.round(call.duration) + ' ms');
      var profile = cell(row, call.token ? '' : call.sameOrigin ? 'no token' : 'other origin');
      if (call.token) {
        var link = document.createElement('a');
        link.href = PROFILER + call.token;
        link.textContent = call.token;
        profile.appendChild(link);
      }
      body.appendChild(row);
    }
    var count = block.querySelector('.sk-count');
    count.textContent = String(calls.length);
    count.className = 'sk-count' + (errors > 0 ? ' sk-error' : '');
    block.classList.toggle('sk-error', errors > 0);
    block.querySelector('.sk-value').setAttribute('aria-label', calls.length + ' fetch/XHR calls' + (pending ? ', ' + pending + ' pending' : '') + (errors ? ', ' + errors + ' failed' : ''));
    fitSpacer();
  }

  function cell(row, text, className) {
    var td = document.createElement('td');
    td.textContent = text;
    if (className) td.className = className;
    row.appendChild(td);
    return td;
  }
})();
