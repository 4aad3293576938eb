// Starts Swagger UI on /swagger. A file rather than an inline script, so the page's CSP allows no
// inline code. persistAuthorization stays false: tokens typed into "Authorize" live only in the
// page's memory, never in localStorage.
window.addEventListener('load', () => {
  window.ui = window.SwaggerUIBundle({ dom_id: '#swagger-ui', url: '/swagger/json', persistAuthorization: false, tryItOutEnabled: true });
});
