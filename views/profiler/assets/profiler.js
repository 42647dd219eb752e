// Shopkernel profiler pages: every button[data-copy="#id"] copies the text of the element it names. The buttons
// are hidden in the HTML and shown here, so that a page without JavaScript offers selectable text, not dead buttons.
// On a narrow screen it also scrolls the panels' row of tabs to the current one.
(function () {
  'use strict';
  var buttons = document.querySelectorAll('button[data-copy]');
  for (var i = 0; i < buttons.length; i++) setUp(buttons[i]);

  // On a narrow screen the panels' menu is one row of tabs that scrolls sideways: the current tab is brought into it.
  var menu = document.querySelector('nav.menu');
  var current = menu && menu.querySelector('a.current');
  if (current && menu.scrollWidth > menu.clientWidth) {
    var m = menu.getBoundingClientRect(), c = current.getBoundingClientRect();
    menu.scrollLeft += c.left - m.left - (m.width - c.width) / 2;
  }

  function setUp(button) {
    var target = document.querySelector(button.getAttribute('data-copy'));
    if (!target) return;
    var label = button.textContent;
    button.hidden = false;
    button.addEventListener('click', function () {
      copy(target).then(function () {
        say(button, 'Copied', label);
      }, function () {
        say(button, 'Select the text and copy it', label);
      });
    });
  }

  // The Clipboard API needs a secure context (https or localhost); a development host over http falls back to
  // selecting the text and the older copy command.
  function copy(element) {
    var text = element.textContent;
    if (navigator.clipboard && window.isSecureContext) return navigator.clipboard.writeText(text);
    return new Promise(function (resolve, reject) {
      var range = document.createRange();
      range.selectNodeContents(element);
      var selection = window.getSelection();
      selection.removeAllRanges();
      selection.addRange(range);
      var done = false;
      try {
        done = document.execCommand('copy');
      } catch (error) {
        done = false;
      }
      if (done) resolve(); else reject(new Error('copy refused'));
    });
  }

  function say(button, message, label) {
    button.textContent = message;
    button.setAttribute('aria-live', 'polite');
    setTimeout(function () { button.textContent = label; }, 2000);
  }
})();
